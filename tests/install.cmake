# What `cmake --install` delivers beyond the libraries (tests/client/
# test_client_example.c checks the install itself): socket activation as
# the systemd units use it, the bash completion and the man pages.
add_executable(listen_launcher ${CMAKE_CURRENT_SOURCE_DIR}/install/listen_launcher.c)
set_target_properties(listen_launcher PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

sc_add_daemon_test(test_activation install 120 LIBS sc_ct_run DEPENDS streamcap listen_launcher)
# systemd-socket-activate, where systemd is installed.
sc_add_needs_test(test_activation test_systemd_socket_activate)
target_compile_definitions(test_activation PRIVATE SC_LAUNCHER="$<TARGET_FILE:listen_launcher>")

# The man pages name every command and option the binaries' --help lists.
sc_add_command_test(man_pages TIMEOUT 60 SKIP_RETURN_CODE 77
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/check_man.sh ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
            ${PROJECT_SOURCE_DIR}/dist/man)
# The bash completion loads and completes what `streamcap --help` lists.
sc_add_command_test(bash_completion TIMEOUT 60
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/check_completion.sh
            ${PROJECT_SOURCE_DIR}/dist/completion/streamcap ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
