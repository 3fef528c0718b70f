# A CUDA program killed with SIGKILL mid-capture under `streamcap run`
# (run_killed.c): its bound session ends as abandoned when its connection
# closes, and the run's summary lists the graph it stored from the daemon.
# cudart_killed_c runs the plain C twin everywhere; cudart_killed_cu the
# nvcc build, skipped (saying why) without nvcc.  Uses what suite.cmake
# found: SC_NVCC_EXECUTABLE and the sanitizer preload.
set(SC_KILLED_DIR ${CMAKE_CURRENT_LIST_DIR})
add_executable(run_killed ${SC_KILLED_DIR}/run_killed.c)
target_link_libraries(run_killed PRIVATE sc_it_harness sc_ct_run Threads::Threads
                      PkgConfig::CMOCKA)
target_compile_definitions(run_killed PRIVATE SC_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
set_target_properties(run_killed PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_dependencies(run_killed streamcapd streamcap sc_cudart)

add_executable(killed_c ${SC_KILLED_DIR}/killed.c)
target_include_directories(killed_c PRIVATE ${SC_SUITE_DIR} ${PROJECT_SOURCE_DIR}/cudart)
target_link_libraries(killed_c PRIVATE sc_cudart Threads::Threads)
set_target_properties(killed_c PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${SC_SUITE_OUT})
sc_add_command_test(cudart_killed_c COMMAND run_killed $<TARGET_FILE:killed_c> TIMEOUT 120)

if(SC_NVCC_EXECUTABLE AND SC_SUITE_PRELOAD_WHY)
    sc_add_command_test(cudart_killed_cu COMMAND run_killed --skip "${SC_SUITE_PRELOAD_WHY}"
                        SKIP_RETURN_CODE 77)
elseif(SC_NVCC_EXECUTABLE)
    set(out ${SC_SUITE_OUT}/killed_cu)
    add_custom_command(OUTPUT ${out}
        COMMAND ${SC_NVCC_EXECUTABLE} -cudart shared -I${SC_SUITE_DIR} -o ${out}
                ${SC_KILLED_DIR}/killed.cu
        DEPENDS ${SC_KILLED_DIR}/killed.cu ${SC_SUITE_DIR}/prog.h
        COMMENT "nvcc killed.cu" VERBATIM)
    add_custom_target(killed_cu ALL DEPENDS ${out})
    sc_add_command_test(cudart_killed_cu COMMAND run_killed ${out} TIMEOUT 120)
    if(SC_SUITE_PRELOAD)
        set_tests_properties(cudart_killed_cu PROPERTIES
                             ENVIRONMENT "LD_PRELOAD=${SC_SUITE_PRELOAD}")
    endif()
else()
    sc_add_command_test(cudart_killed_cu COMMAND run_killed --skip "${SC_NVCC_WHY}"
                        SKIP_RETURN_CODE 77)
endif()
