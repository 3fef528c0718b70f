# The CUDA runtime stand-in (cudart/): its runtime half through the
# project's own declarations, and the ABI against the toolkit where one is
# installed.
# White-box: the library's objects linked in, so that the rt.h accessors
# (local in libcudart.so.13) can check what a capture built.
sc_add_test(test_cudart_rt SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cudart/test_cudart_rt.c
            LIBS sc_cudart_obj)

# The ABI: exports under the version node everywhere; layouts, prototypes
# and the error table against the toolkit where it is installed.
sc_add_command_test(test_cudart_abi
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cudart/abi_check.sh ${CMAKE_C_COMPILER}
            ${PROJECT_SOURCE_DIR} $<TARGET_FILE:sc_cudart> ${CMAKE_NM}
    TIMEOUT 120 SKIP_RETURN_CODE 77)
