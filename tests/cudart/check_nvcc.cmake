# cmake [-DSC_NVCC=OFF] [-DSC_NVCC_HINTS=...] -DWANT=found|missing -P check_nvcc.cmake:
# the suite's nvcc detection gives what WANT says, and a reason that starts
# "nvcc not found:" when it finds none.
include(${CMAKE_CURRENT_LIST_DIR}/nvcc.cmake)
sc_find_nvcc(exe why)
if(WANT STREQUAL "missing")
    if(NOT exe STREQUAL "" OR NOT why MATCHES "^nvcc not found: ")
        message(FATAL_ERROR "want no nvcc, got '${exe}' ('${why}')")
    endif()
elseif(exe STREQUAL "")
    message(FATAL_ERROR "want nvcc, got none: ${why}")
endif()
message(STATUS "nvcc: '${exe}' ${why}")
