# Documentation that is executable: the README's commands run as written.
sc_add_command_test(readme_roundtrip TIMEOUT 60
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs/readme_roundtrip.sh
            ${PROJECT_SOURCE_DIR}/README.md ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})

sc_add_command_test(readme_quickstart TIMEOUT 120
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs/readme_quickstart.sh
            ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR})
if(SC_SANITIZE)
    # The README's cc line builds an uninstrumented program against the
    # sanitized library, so the ASan runtime is not first in its link order.
    set_tests_properties(readme_quickstart PROPERTIES
        ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0")
endif()

# docs/design.md's table from each method to its handler, file, parameters
# and store call, read against the compiled method table (sc_methods[]).
sc_add_test(design_method_table SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/docs/test_design_methods.c
            LIBS sc_proto TIMEOUT 30)
target_compile_definitions(design_method_table PRIVATE
    SC_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    SC_STORE_HEADER="$<TARGET_PROPERTY:sc_store,SOURCE_DIR>/sc_store.h"
    SC_CACHE_HEADER="$<TARGET_PROPERTY:sc_daemon,SOURCE_DIR>/sc_cache.h")

# Every file path, function() and section cited by the documents and the
# comments exists (tests/docs/check_refs.py).
# scripts/deps installs python3.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME docs_references
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_refs.py
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_references PROPERTIES TIMEOUT 120)

# No product source file over 1,000 lines, no function over 120.
add_test(NAME source_sizes
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_sizes.py
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(source_sizes PROPERTIES TIMEOUT 60)
