# Documentation that is executable: the README's commands run as written.
add_test(NAME readme_roundtrip
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs/readme_roundtrip.sh
                 ${PROJECT_SOURCE_DIR}/README.md ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
set_tests_properties(readme_roundtrip PROPERTIES TIMEOUT 60)

add_test(NAME readme_quickstart
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs/readme_quickstart.sh
                 ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(readme_quickstart PROPERTIES TIMEOUT 120)
