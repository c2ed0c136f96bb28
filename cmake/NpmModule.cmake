# A prebuilt ggml backend module from node-llama-cpp's npm release of the pinned llama.cpp
# (VulkanModule.cmake, CudaModule.cmake): npm pack, sha512 against the pinned integrity, the
# module's build metadata must name our llama.cpp release, its RUNPATH reduced to $ORIGIN (npm's
# modules carry an empty entry, which the loader reads as the current directory, or the path of
# the machine that built them), then kept in the cache as verified.
#   shoehorn_fetch_npm_module(SPEC TARBALL SHA512 BINS LIB CACHE_NAME HINT OUT_FILE)
# BINS: the folder in the tarball (package/bins/linux-x64-vulkan); LIB: the module's file name.
function(shoehorn_fetch_npm_module spec tarball sha512 bins lib cache_name hint out_file)
    set(dir "${SHOEHORN_CACHE_DIR}/${cache_name}")
    if(EXISTS "${dir}/${lib}" AND EXISTS "${dir}/.shoehorn-verified")
        set(${out_file} "${dir}/${lib}" PARENT_SCOPE)
        return()
    endif()
    shoehorn_npm_pack("${spec}" "${tarball}" SHA512 "${sha512}" "${hint}" tgz)
    set(unpack "${SHOEHORN_CACHE_DIR}/download/unpack-${cache_name}")
    file(REMOVE_RECURSE "${unpack}")
    file(MAKE_DIRECTORY "${unpack}")
    execute_process(COMMAND ${CMAKE_COMMAND} -E tar xzf "${tgz}" ${bins}/${lib} ${bins}/_nlcBuildMetadata.json
                    WORKING_DIRECTORY "${unpack}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "Could not unpack ${lib} from ${tgz}")
    endif()
    file(READ "${unpack}/${bins}/_nlcBuildMetadata.json" meta)
    string(JSON release GET "${meta}" buildOptions llamaCpp release)
    if(NOT release STREQUAL SHOEHORN_LLAMA_RELEASE)
        message(FATAL_ERROR "${spec} was built from llama.cpp ${release}, the source is ${SHOEHORN_LLAMA_RELEASE}: "
                            "its module would not match our ggml")
    endif()
    find_program(PATCHELF_EXECUTABLE patchelf REQUIRED)
    execute_process(COMMAND "${PATCHELF_EXECUTABLE}" --set-rpath "$ORIGIN" "${unpack}/${bins}/${lib}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "patchelf could not set the RUNPATH of ${lib}")
    endif()
    file(MAKE_DIRECTORY "${dir}")
    file(COPY "${unpack}/${bins}/${lib}" DESTINATION "${dir}")
    file(REMOVE_RECURSE "${unpack}")
    file(WRITE "${dir}/.shoehorn-verified" "${sha512} ${release}\n")
    set(${out_file} "${dir}/${lib}" PARENT_SCOPE)
endfunction()
