# Find nvcc for the scenario suite's .cu programs.  Where it is missing
# (a machine without the CUDA toolkit) or -DSC_NVCC=OFF turns it off, the
# .cu tests are still registered and skip, saying why.
#
# sc_find_nvcc(EXE_VAR WHY_VAR): EXE_VAR gets nvcc's path or "", WHY_VAR
# the reason when it is "".  Looks on PATH, then in SC_NVCC_HINTS
# (default /usr/local/cuda/bin).  Usable in script mode (cmake -P), where
# tests/cudart/check_nvcc.cmake runs it.
function(sc_find_nvcc exe_var why_var)
    if(DEFINED SC_NVCC AND NOT SC_NVCC)
        set(${exe_var} "" PARENT_SCOPE)
        set(${why_var} "nvcc not found: disabled with -DSC_NVCC=OFF" PARENT_SCOPE)
        return()
    endif()
    if(NOT DEFINED SC_NVCC_HINTS)
        set(SC_NVCC_HINTS /usr/local/cuda/bin)
    endif()
    # Searched afresh at every configure: a toolkit installed or removed
    # since is seen (the result is not left in the cache).
    find_program(SC_NVCC_FOUND_ nvcc HINTS ${SC_NVCC_HINTS})
    set(found "${SC_NVCC_FOUND_}")
    unset(SC_NVCC_FOUND_ CACHE)
    if(found)
        set(${exe_var} "${found}" PARENT_SCOPE)
        set(${why_var} "" PARENT_SCOPE)
    else()
        string(REPLACE ";" " " hints "${SC_NVCC_HINTS}")
        set(${exe_var} "" PARENT_SCOPE)
        set(${why_var} "nvcc not found: not on PATH nor in ${hints}" PARENT_SCOPE)
    endif()
endfunction()
