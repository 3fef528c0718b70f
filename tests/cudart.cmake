# The CUDA runtime stand-in (cudart/): its runtime half through the
# project's own declarations, and the ABI against the toolkit where one is
# installed.
# White-box: the library's objects linked in, so that the rt.h accessors
# (local in libcudart.so.13) can check what a capture built.
sc_add_test(test_cudart_rt SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cudart/test_cudart_rt.c
            LIBS sc_cudart_obj)

# The end-to-end scenario suite (tests/cudart/suite.cmake).
include(${CMAKE_CURRENT_SOURCE_DIR}/cudart/suite.cmake)
