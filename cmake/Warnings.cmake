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
    endif()
    if(SHOEHORN_FUZZ) # coverage for libFuzzer in Shoehorn's own code (the fuzz targets link it)
        target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
    endif()
endfunction()
