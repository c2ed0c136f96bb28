# ggml's CUDA backend as a module, for NVIDIA cards (the shoehorn-backend-cuda package).
#
# Not compiled here: the module comes from the same npm release as the source bundle
# (LlamaCpp.cmake), @node-llama-cpp/linux-x64-cuda@3.21.1, built by node-llama-cpp from llama.cpp
# release SHOEHORN_LLAMA_RELEASE with CUDA 13 for compute capability 8.6, 8.9, 12.0 and 12.1
# (RTX 30, 40 and 50 series and later). Older cards (GTX 10, GTX 16, RTX 20) are not among them;
# CUDA 13 cannot target them at all, and Shoehorn runs them on Vulkan (engine/internal/backends.cpp
# decides per card). The tarball's sha512 is pinned and its build metadata must name our release.
#
# The module needs the CUDA 13 runtime (libcudart.so.13, libcublas.so.13 and libcublasLt.so.13),
# which no Debian package provides: the package ships them beside the module (redistributable
# under NVIDIA's CUDA EULA, Attachment A), copied from SHOEHORN_CUDA_RUNTIME_DIR, a CUDA 13
# toolkit on the machine that builds the package. The driver (libcuda.so.1, 580 or newer for
# CUDA 13) is the user's. SHOEHORN_CUDA_PACKAGE=AUTO packages it where that runtime is found.
# Provides the target shoehorn_cuda_module (bin/libggml-cuda.so, the runtime linked beside it) and
# installs them as the COMPONENT cuda.

set(SHOEHORN_CUDA_NPM_PACKAGE "@node-llama-cpp/linux-x64-cuda@3.21.1")
# npm view @node-llama-cpp/linux-x64-cuda@3.21.1 dist.integrity, as hex
set(SHOEHORN_CUDA_NPM_SHA512
    "89db04e795680ff15bbcb867042f64ad425a5280b45e779bb1e0009c2a66fdbaca7fad4711bbbe89d81b6f978dea6c648cb4ab1ed20ba6b2749c371426356b16")
set(SHOEHORN_CUDA_RUNTIME_LIBS libcudart.so.13 libcublas.so.13 libcublasLt.so.13)


include(${CMAKE_CURRENT_LIST_DIR}/NpmModule.cmake)
shoehorn_fetch_npm_module("${SHOEHORN_CUDA_NPM_PACKAGE}" node-llama-cpp-linux-x64-cuda-3.21.1.tgz "${SHOEHORN_CUDA_NPM_SHA512}" package/bins/linux-x64-cuda libggml-cuda.so
                          ggml-cuda-3.21.1 "Configure with -DSHOEHORN_CUDA_PACKAGE=OFF to build without the CUDA package." SHOEHORN_CUDA_MODULE_FILE)
message(STATUS "ggml CUDA module: ${SHOEHORN_CUDA_MODULE_FILE}, CUDA runtime from ${SHOEHORN_CUDA_RUNTIME_DIR}")
# Beside the programs, like the other modules; the runtime as links to the toolkit's copies (the
# package holds the files themselves).
set(_outputs "${CMAKE_BINARY_DIR}/bin/libggml-cuda.so")
set(_commands COMMAND ${CMAKE_COMMAND} -E copy "${SHOEHORN_CUDA_MODULE_FILE}" "${CMAKE_BINARY_DIR}/bin/libggml-cuda.so")
foreach(lib ${SHOEHORN_CUDA_RUNTIME_LIBS})
    list(APPEND _outputs "${CMAKE_BINARY_DIR}/bin/${lib}")
    list(APPEND _commands COMMAND ${CMAKE_COMMAND} -E create_symlink "${SHOEHORN_CUDA_RUNTIME_DIR}/${lib}"
                                  "${CMAKE_BINARY_DIR}/bin/${lib}")
endforeach()
add_custom_command(OUTPUT ${_outputs} ${_commands} DEPENDS "${SHOEHORN_CUDA_MODULE_FILE}" VERBATIM)
add_custom_target(shoehorn_cuda_module ALL DEPENDS ${_outputs} ggml-base)
