# check_exports.cmake - libstreamcap exports exactly the API of streamcap.h.
#
#   cmake -DNM=nm -DHEADER=client/streamcap.h -DSHARED=libstreamcap.so
#         -DSTATIC=libstreamcap.a -P check_exports.cmake
#
# The allowed names are the functions the header declares with
# SC_CLIENT_API, read from the header itself, so adding a call to the API
# needs no change here.  Fails when either library defines a global symbol
# outside that list (an internal helper leaking out, where it can clash with
# the caller's own symbols), or lacks one of the API functions.
cmake_minimum_required(VERSION 3.18)

foreach(var NM HEADER SHARED STATIC)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "check_exports.cmake: -D${var}=... is required")
    endif()
endforeach()

# ---- the API: every "SC_CLIENT_API <type> [*]name(" in the header ----
file(READ ${HEADER} text)
# Comments may mention functions; only declarations count.
string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" " " text "${text}")
string(REGEX REPLACE "//[^\n]*" " " text "${text}")
string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")
string(REGEX MATCHALL "SC_CLIENT_API [^;(]*[ *]([A-Za-z_][A-Za-z0-9_]*) ?\\(" decls "${text}")
set(api "")
foreach(d IN LISTS decls)
    string(REGEX REPLACE ".*[ *]([A-Za-z_][A-Za-z0-9_]*) ?\\($" "\\1" name "${d}")
    list(APPEND api ${name})
endforeach()
list(REMOVE_DUPLICATES api)
list(LENGTH api napi)
if(napi LESS 10)
    # A header the parser no longer understands must not pass vacuously.
    message(FATAL_ERROR "found only ${napi} SC_CLIENT_API declarations in ${HEADER}")
endif()

# ---- defined global symbols of one library, by nm ----
function(defined_globals out)
    execute_process(COMMAND ${NM} ${ARGN}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE listing ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${NM} ${ARGN} failed: ${err}")
    endif()
    string(REPLACE "\n" ";" lines "${listing}")
    set(names "")
    foreach(line IN LISTS lines)
        # "0000000000001234 T name" (archive member headers "x.o:" and blank
        # lines are skipped); versioned names ("name@@V") keep the base name.
        if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] ([^ @]+)")
            list(APPEND names ${CMAKE_MATCH_1})
        endif()
    endforeach()
    list(REMOVE_DUPLICATES names)
    set(${out} "${names}" PARENT_SCOPE)
endfunction()

defined_globals(shared_syms -D --defined-only ${SHARED})
defined_globals(static_syms -g --defined-only ${STATIC})

set(failed FALSE)
foreach(kind shared static)
    if(kind STREQUAL "shared")
        set(lib ${SHARED})
    else()
        set(lib ${STATIC})
    endif()
    set(extra "")
    foreach(s IN LISTS ${kind}_syms)
        # Names starting with an underscore are reserved to the toolchain
        # (_init, _fini, sanitizer and coverage bookkeeping); the header can
        # declare none of them.
        if(NOT s MATCHES "^_" AND NOT s IN_LIST api)
            list(APPEND extra ${s})
        endif()
    endforeach()
    set(missing "")
    foreach(f IN LISTS api)
        if(NOT f IN_LIST ${kind}_syms)
            list(APPEND missing ${f})
        endif()
    endforeach()
    list(LENGTH ${kind}_syms n)
    list(LENGTH extra nextra)
    list(LENGTH missing nmissing)
    message(STATUS "${lib}: ${n} global symbols, ${nextra} outside streamcap.h, "
                   "${nmissing} of its ${napi} functions missing")
    foreach(s IN LISTS extra)
        message(STATUS "  not in streamcap.h: ${s}")
        set(failed TRUE)
    endforeach()
    foreach(s IN LISTS missing)
        message(STATUS "  not exported: ${s}")
        set(failed TRUE)
    endforeach()
endforeach()

if(failed)
    message(FATAL_ERROR "libstreamcap exports differ from client/streamcap.h")
endif()
