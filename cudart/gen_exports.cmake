# cmake -DIN=exports.txt -DOUT=sc_exports.inc -P gen_exports.cmake
# Writes one X(index, name) line per export of cudart/exports.txt, the list
# unsupported.c turns into weak fallbacks.
file(STRINGS ${IN} lines)
set(out "/* Generated from cudart/exports.txt by gen_exports.cmake; do not edit. */\n")
set(i 0)
foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    if(line STREQUAL "" OR line MATCHES "^#")
        continue()
    endif()
    string(APPEND out "X(${i}, ${line})\n")
    math(EXPR i "${i} + 1")
endforeach()
string(APPEND out "#define SC_RT_NEXPORTS ${i}\n")
# Rewrite only on change, so a rebuild does not recompile for nothing.
if(EXISTS ${OUT})
    file(READ ${OUT} old)
    if(old STREQUAL out)
        return()
    endif()
endif()
file(WRITE ${OUT} "${out}")
