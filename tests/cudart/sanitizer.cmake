# The sanitizer runtimes an uninstrumented program needs preloaded to load
# the sanitized libcudart.so.13.  Usable in script mode (cmake -P), where
# tests/cudart/check_preload.cmake runs it with SC_SANITIZE,
# CMAKE_C_COMPILER, CMAKE_C_COMPILER_ID and CMAKE_SYSTEM_PROCESSOR given.
#
# sc_sanitizer_preload(OUT WHY): in a sanitized build (SC_SANITIZE), the
# compiler's shared sanitizer runtimes as an LD_PRELOAD value, for programs
# built without them (nvcc's) that load the sanitized libcudart.so.13: the
# ASan runtime has to come first in such a process.  The instrumented
# processes of a test (run_suite, streamcap, streamcapd) link the same
# shared runtimes, so the preload changes nothing for them.  OUT is empty
# and WHY says why when the runtimes are not found; both are empty outside
# a sanitized build.
function(sc_sanitizer_preload out why)
    set(libs "")
    set(reason "")
    if(SC_SANITIZE)
        if(CMAKE_C_COMPILER_ID MATCHES "Clang")
            # clang's shared ASan runtime carries UBSan's handlers too.
            set(names libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
        elseif(CMAKE_C_COMPILER_ID STREQUAL "GNU")
            set(names libasan.so libubsan.so)
        else()
            set(reason "no known sanitizer runtime for ${CMAKE_C_COMPILER_ID}")
            set(names "")
        endif()
        foreach(name ${names})
            execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${name}
                            OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE
                            RESULT_VARIABLE rc ERROR_QUIET)
            # -print-file-name echoes the bare name when it finds nothing.
            if(NOT rc EQUAL 0 OR NOT IS_ABSOLUTE "${path}" OR NOT EXISTS "${path}")
                set(reason "${CMAKE_C_COMPILER} has no ${name} to preload")
                set(libs "")
                break()
            endif()
            list(APPEND libs ${path})
        endforeach()
    endif()
    list(JOIN libs ":" value)
    set(${out} "${value}" PARENT_SCOPE)
    set(${why} "${reason}" PARENT_SCOPE)
endfunction()
