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


include(${CMAKE_CURRENT_LIST_DIR}/NpmModule.cmake)
shoehorn_fetch_npm_module("${SHOEHORN_VULKAN_NPM_PACKAGE}" node-llama-cpp-linux-x64-vulkan-3.21.1.tgz "${SHOEHORN_VULKAN_NPM_SHA512}" package/bins/linux-x64-vulkan libggml-vulkan.so
                          ggml-vulkan-3.21.1 "Configure with -DSHOEHORN_VULKAN=OFF to build without the Vulkan module." SHOEHORN_VULKAN_MODULE_FILE)
message(STATUS "ggml Vulkan module: ${SHOEHORN_VULKAN_MODULE_FILE}")
# Beside the programs and the CPU modules, where the engine loads backends from. The module asks
# for libggml-base.so (RUNPATH $ORIGIN): CMake's name link of our libggml-base.so.0 is that name.
add_custom_command(OUTPUT "${CMAKE_BINARY_DIR}/bin/libggml-vulkan.so"
                   COMMAND ${CMAKE_COMMAND} -E copy "${SHOEHORN_VULKAN_MODULE_FILE}" "${CMAKE_BINARY_DIR}/bin/libggml-vulkan.so"
                   DEPENDS "${SHOEHORN_VULKAN_MODULE_FILE}" VERBATIM)
add_custom_target(shoehorn_vulkan_module ALL DEPENDS "${CMAKE_BINARY_DIR}/bin/libggml-vulkan.so" ggml-base)
