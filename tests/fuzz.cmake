# The byte-stream fuzz harness.  `make test` replays the checked-in corpus
# through it; with -DSC_FUZZ=ON (clang) it also builds the libFuzzer target
# that tests/fuzz/run.sh drives for a given time.
add_library(sc_fuzz_harness STATIC ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_stream.c)
target_link_libraries(sc_fuzz_harness PUBLIC sc_daemon)
target_compile_definitions(sc_fuzz_harness PRIVATE _GNU_SOURCE)

add_executable(fuzz_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/replay_main.c)
target_link_libraries(fuzz_replay PRIVATE sc_fuzz_harness)
set_target_properties(fuzz_replay PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
sc_add_command_test(fuzz_replay TIMEOUT 120
    COMMAND fuzz_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus)

if(SC_FUZZ)
    add_executable(fuzz_stream ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_main.c)
    target_compile_options(fuzz_stream PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_stream PRIVATE -fsanitize=fuzzer)
    target_link_libraries(fuzz_stream PRIVATE sc_fuzz_harness)
endif()
