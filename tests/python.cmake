# The Python client and pytest plugin (python/): pytest suites against a
# real streamcapd, one ctest entry per test file.  They need an interpreter
# that can import pytest (Debian's python3-pytest, from scripts/deps):
# /usr/bin/python3 first, then python3 on PATH; with none every entry
# skips, saying why.
include(${CMAKE_CURRENT_LIST_DIR}/cudart/nvcc.cmake)

set(SC_PY_DIR ${PROJECT_SOURCE_DIR}/python)
set(SC_PY_TESTS client methods socket pipeline async graph plugin)

set(SC_PYTEST "")
find_program(SC_PY_PATH_PYTHON_ python3)
foreach(candidate /usr/bin/python3 ${SC_PY_PATH_PYTHON_})
    if(NOT SC_PYTEST AND EXISTS ${candidate})
        execute_process(COMMAND ${candidate} -c "import sys, pytest; sys.exit(sys.version_info < (3, 9))"
                        RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
        if(rc EQUAL 0)
            set(SC_PYTEST ${candidate})
        endif()
    endif()
endforeach()
unset(SC_PY_PATH_PYTHON_ CACHE)

# The .cu test needs nvcc and an unsanitized stand-in (an nvcc program
# cannot load the sanitized one without the runtime preloaded).
sc_find_nvcc(SC_PY_NVCC SC_PY_NVCC_WHY)
if(SC_SANITIZE)
    set(SC_PY_NVCC "")
    set(SC_PY_NVCC_WHY "the .cu program is not run against a sanitized stand-in")
endif()

# The program the capture fixture runs without nvcc: the stand-in's C
# fork/join scenario.
set(SC_PY_PROGRAM "")
if(TARGET suite_fork_join_c)
    set(SC_PY_PROGRAM $<TARGET_FILE:suite_fork_join_c>)
endif()

if(NOT SC_PYTEST)
    message(STATUS "Python tests: skipped (no python3 >= 3.9 with pytest; install python3-pytest)")
endif()

# pytest makes each --basetemp below, but not the folder that holds them.
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/python)
foreach(name ${SC_PY_TESTS})
    if(SC_PYTEST)
        sc_add_command_test(py_${name} TIMEOUT 300
            COMMAND ${SC_PYTEST} -m pytest -q -p no:cacheprovider -p streamcap.pytest_plugin
                    --basetemp=${CMAKE_BINARY_DIR}/tests/python/${name}
                    ${SC_PY_DIR}/tests/test_${name}.py)
        set_tests_properties(py_${name} PROPERTIES ENVIRONMENT
            "PYTHONPATH=${SC_PY_DIR};PYTHONDONTWRITEBYTECODE=1;STREAMCAPD=$<TARGET_FILE:streamcapd>;STREAMCAP_CLI=$<TARGET_FILE:streamcap>;STREAMCAP_TEST_PROGRAM=${SC_PY_PROGRAM}")
    else()
        sc_add_command_test(py_${name} SKIP_RETURN_CODE 77
            COMMAND sh -c "echo 'py_${name}: skipped: no python3 >= 3.9 can import pytest (install python3-pytest)'; exit 77")
    endif()
endforeach()

# The plugin on a .cu program: its own entry, so that ctest shows the skip.
if(SC_PYTEST AND SC_PY_NVCC)
    sc_add_command_test(py_cu TIMEOUT 300
        COMMAND ${SC_PYTEST} -m pytest -q -p no:cacheprovider -p streamcap.pytest_plugin
                --basetemp=${CMAKE_BINARY_DIR}/tests/python/cu ${SC_PY_DIR}/tests/test_cu.py)
    set_tests_properties(py_cu PROPERTIES ENVIRONMENT
        "PYTHONPATH=${SC_PY_DIR};PYTHONDONTWRITEBYTECODE=1;STREAMCAPD=$<TARGET_FILE:streamcapd>;STREAMCAP_CLI=$<TARGET_FILE:streamcap>;STREAMCAP_NVCC=${SC_PY_NVCC}")
else()
    if(NOT SC_PYTEST)
        set(SC_PY_NVCC_WHY "no python3 >= 3.9 can import pytest (install python3-pytest)")
    endif()
    sc_add_command_test(py_cu SKIP_RETURN_CODE 77
        COMMAND sh -c "echo 'py_cu: skipped: ${SC_PY_NVCC_WHY}'; exit 77")
endif()

# The generated calls are current: needs no pytest, so it runs everywhere.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME py_methods_generated
         COMMAND ${Python3_EXECUTABLE} ${SC_PY_DIR}/gen_methods.py --check)
set_tests_properties(py_methods_generated PROPERTIES TIMEOUT 30)

# `pip install ./python` into a fresh virtual environment, offline.
sc_add_command_test(py_install TIMEOUT 300 SKIP_RETURN_CODE 77
    COMMAND sh ${SC_PY_DIR}/tests/install.sh ${SC_PY_DIR} ${CMAKE_BINARY_DIR}/tests/python/install)
