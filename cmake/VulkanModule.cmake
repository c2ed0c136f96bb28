# ggml's Vulkan backend as a module: AMD and Intel cards, and NVIDIA cards CUDA does not cover.
#
# Not compiled here: Debian 12's Vulkan headers (1.3.239) lack what this llama.cpp's ggml-vulkan
# uses (vk::LayerSettingEXT, VK_EXT_layer_settings) and glslc is not packaged for Debian 12. The
# module comes instead from the same npm release as the source bundle (LlamaCpp.cmake):
# @node-llama-cpp/linux-x64-vulkan@3.21.1, built by node-llama-cpp from llama.cpp release
# SHOEHORN_LLAMA_RELEASE on Ubuntu 22.04 (glibc 2.35 or older; it needs only libvulkan.so.1 and
# libggml-base.so). The tarball's sha512 is pinned (npm's integrity), its build metadata must name
# the same llama.cpp release as our source, and tests/engine/backendabi.cpp proves at test time
# that it loads into this build's libggml-base and computes as our CPU backend does.
# Provides the target shoehorn_vulkan_module (bin/libggml-vulkan.so) and installs it as the
# COMPONENT vulkan (the shoehorn-backend-vulkan package).

set(SHOEHORN_VULKAN_NPM_PACKAGE "@node-llama-cpp/linux-x64-vulkan@3.21.1")
# npm view @node-llama-cpp/linux-x64-vulkan@3.21.1 dist.integrity, as hex
set(SHOEHORN_VULKAN_NPM_SHA512
    "7e511e4b338d43a3889b96d828b41fe1e127073702e56ba015bc8f530902ab2c8e159f291f41fdba543b64d0cb48873378a9de311268ae79726351eaedddc60c")

function(shoehorn_fetch_vulkan_module out_file)
    set(dir "${SHOEHORN_CACHE_DIR}/ggml-vulkan-3.21.1")
    if(EXISTS "${dir}/libggml-vulkan.so" AND EXISTS "${dir}/.shoehorn-verified")
        set(${out_file} "${dir}/libggml-vulkan.so" PARENT_SCOPE)
        return()
    endif()
    set(dl "${SHOEHORN_CACHE_DIR}/download")
    shoehorn_npm_pack("${SHOEHORN_VULKAN_NPM_PACKAGE}" node-llama-cpp-linux-x64-vulkan-3.21.1.tgz SHA512
                      "${SHOEHORN_VULKAN_NPM_SHA512}"
                      "Configure with -DSHOEHORN_VULKAN=OFF to build without the Vulkan module." tgz)
    set(unpack "${dl}/unpack-vulkan")
    file(REMOVE_RECURSE "${unpack}")
    file(MAKE_DIRECTORY "${unpack}")
    set(bins package/bins/linux-x64-vulkan)
    execute_process(COMMAND ${CMAKE_COMMAND} -E tar xzf "${tgz}" ${bins}/libggml-vulkan.so ${bins}/_nlcBuildMetadata.json
                    WORKING_DIRECTORY "${unpack}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "Could not unpack libggml-vulkan.so from ${tgz}")
    endif()
    file(READ "${unpack}/${bins}/_nlcBuildMetadata.json" meta)
    string(JSON release GET "${meta}" buildOptions llamaCpp release)
    if(NOT release STREQUAL SHOEHORN_LLAMA_RELEASE)
        message(FATAL_ERROR "${SHOEHORN_VULKAN_NPM_PACKAGE} was built from llama.cpp ${release}, "
                            "the source is ${SHOEHORN_LLAMA_RELEASE}: its module would not match our ggml")
    endif()
    # Its RUNPATH is "$ORIGIN:/opt/vulkan-sdk/x86_64/lib:" from the machine that built it; the
    # empty last entry means the current directory to the loader, so a libvulkan.so.1 in whatever
    # folder the user starts Shoehorn from would be loaded. Only $ORIGIN (libggml-base.so) stays.
    find_program(PATCHELF_EXECUTABLE patchelf REQUIRED)
    execute_process(COMMAND "${PATCHELF_EXECUTABLE}" --set-rpath "$ORIGIN" "${unpack}/${bins}/libggml-vulkan.so"
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "patchelf could not set the Vulkan module's RUNPATH")
    endif()
    file(MAKE_DIRECTORY "${dir}")
    file(COPY "${unpack}/${bins}/libggml-vulkan.so" DESTINATION "${dir}")
    file(REMOVE_RECURSE "${unpack}")
    file(WRITE "${dir}/.shoehorn-verified" "${SHOEHORN_VULKAN_NPM_SHA512} ${release}\n")
    set(${out_file} "${dir}/libggml-vulkan.so" PARENT_SCOPE)
endfunction()

shoehorn_fetch_vulkan_module(SHOEHORN_VULKAN_MODULE_FILE)
message(STATUS "ggml Vulkan module: ${SHOEHORN_VULKAN_MODULE_FILE}")
# Beside the programs and the CPU modules, where the engine loads backends from. The module asks
# for libggml-base.so (RUNPATH $ORIGIN): CMake's name link of our libggml-base.so.0 is that name.
add_custom_command(OUTPUT "${CMAKE_BINARY_DIR}/bin/libggml-vulkan.so"
                   COMMAND ${CMAKE_COMMAND} -E copy "${SHOEHORN_VULKAN_MODULE_FILE}" "${CMAKE_BINARY_DIR}/bin/libggml-vulkan.so"
                   DEPENDS "${SHOEHORN_VULKAN_MODULE_FILE}" VERBATIM)
add_custom_target(shoehorn_vulkan_module ALL DEPENDS "${CMAKE_BINARY_DIR}/bin/libggml-vulkan.so" ggml-base)
