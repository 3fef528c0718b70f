# cmake -DSC_SANITIZE=ON|OFF -DCMAKE_C_COMPILER=CC -DCMAKE_C_COMPILER_ID=ID
#       -DCMAKE_SYSTEM_PROCESSOR=ARCH -DWANT=found|missing|none -P check_preload.cmake:
# the sanitizer runtime detection gives what WANT says: found, existing
# absolute paths with the ASan runtime first; missing, no preload and a
# reason naming the runtime; none (no sanitized build), neither.
include(${CMAKE_CURRENT_LIST_DIR}/sanitizer.cmake)
sc_sanitizer_preload(preload why)
if(WANT STREQUAL "found")
    if(preload STREQUAL "" OR NOT why STREQUAL "")
        message(FATAL_ERROR "want the runtimes, got '${preload}' ('${why}')")
    endif()
    string(REPLACE ":" ";" libs "${preload}")
    list(GET libs 0 first)
    if(NOT first MATCHES "asan")
        message(FATAL_ERROR "the ASan runtime does not come first: ${preload}")
    endif()
    foreach(lib ${libs})
        if(NOT IS_ABSOLUTE "${lib}" OR NOT EXISTS "${lib}")
            message(FATAL_ERROR "not an existing absolute path: '${lib}' in ${preload}")
        endif()
    endforeach()
elseif(WANT STREQUAL "missing")
    if(NOT preload STREQUAL "" OR NOT why MATCHES "has no lib.*asan.*\\.so to preload$")
        message(FATAL_ERROR "want no runtimes and a reason, got '${preload}' ('${why}')")
    endif()
elseif(NOT preload STREQUAL "" OR NOT why STREQUAL "")
    message(FATAL_ERROR "want nothing outside a sanitized build, got '${preload}' ('${why}')")
endif()
message(STATUS "preload: '${preload}' ${why}")
