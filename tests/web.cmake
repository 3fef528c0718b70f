# The web view (streamcap web): its request checks as a unit; at the HTTP
# level against a real daemon and a real server (tests/web/test_web_http.py);
# in headless Chromium through Selenium (tests/web/test_web_browser.py),
# screenshots under build/web-artifacts.
sc_add_test(web_req SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/web/test_web_req.c
            ${PROJECT_SOURCE_DIR}/cli/cli_web_req.c LIBS TIMEOUT 30)
target_include_directories(web_req PRIVATE ${PROJECT_SOURCE_DIR}/cli)

# A test that cannot run here: one line saying why, skipped (77).
function(sc_web_skip name why)
    sc_add_command_test(${name} COMMAND sh -c "echo 'skipped: ${why}' && exit 77"
                        SKIP_RETURN_CODE 77 LABELS web)
endfunction()

find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(SC_WEB_BIN ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
if(NOT SC_HAVE_MHD)
    sc_web_skip(web_http "streamcap was built without libmicrohttpd (apt-get install libmicrohttpd-dev)")
    sc_web_skip(web_browser "streamcap was built without libmicrohttpd (apt-get install libmicrohttpd-dev)")
    return()
endif()
sc_add_command_test(web_http TIMEOUT 120 LABELS web
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/web/test_web_http.py ${SC_WEB_BIN})

# Selenium comes from Debian's python3-selenium, which the python3 first on
# PATH may not see (a pyenv one): take the first interpreter that imports it.
set(SC_WEB_PY "")
foreach(py /usr/bin/python3 ${Python3_EXECUTABLE})
    if(NOT SC_WEB_PY AND EXISTS ${py})
        execute_process(COMMAND ${py} -c "import selenium" RESULT_VARIABLE rc
                        OUTPUT_QUIET ERROR_QUIET)
        if(rc EQUAL 0)
            set(SC_WEB_PY ${py})
        endif()
    endif()
endforeach()
find_program(SC_CHROMEDRIVER chromedriver)
find_program(SC_CHROMIUM NAMES chromium chromium-browser)
if(NOT SC_WEB_PY)
    sc_web_skip(web_browser "no python3 here can import selenium (apt-get install python3-selenium)")
elseif(NOT SC_CHROMEDRIVER OR NOT SC_CHROMIUM)
    sc_web_skip(web_browser "chromium or chromedriver missing (apt-get install chromium chromium-driver)")
else()
    sc_add_command_test(web_browser TIMEOUT 300 LABELS web
        COMMAND ${SC_WEB_PY} ${CMAKE_CURRENT_SOURCE_DIR}/web/test_web_browser.py ${SC_WEB_BIN}
                ${CMAKE_BINARY_DIR}/web-artifacts ${SC_CHROMIUM} ${SC_CHROMEDRIVER})
endif()
