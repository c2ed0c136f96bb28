# Warning and sanitizer flags for Shoehorn's own targets only (llama.cpp keeps its own).
function(shoehorn_target_defaults target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
                                             -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
                                             -Woverloaded-virtual -Wformat=2)
    if(SHOEHORN_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
    if(SHOEHORN_SANITIZE)
        target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer)
        target_link_options(${target} PRIVATE -fsanitize=address,undefined)
        # GCC 12's flow analysis under the sanitizers reports std::regex's std::function members
        # as maybe uninitialized (a false positive in libstdc++ headers, seen building oomladder.cpp
        # with SHOEHORN_SANITIZE=ON): not ours, and fatal with -Werror.
        if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
            target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
        endif()
    endif()
    if(SHOEHORN_FUZZ) # coverage for libFuzzer in Shoehorn's own code (the fuzz targets link it)
        target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
    endif()
endfunction()
