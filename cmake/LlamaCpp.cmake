# Provides the llama.cpp targets `llama`, `llama-common`, `ggml` and `llama-bench`.
#
# The source comes from the npm package node-llama-cpp@3.21.1, which ships llama.cpp as a
# git bundle. We fetch it with `npm pack`, verify the tarball's sha256 and clone the bundle
# into a cache directory outside the source tree, so neither git nor a fresh clone carries it.
# SHOEHORN_LLAMA_SOURCE_DIR points at an existing llama.cpp checkout instead.
#
# llama.cpp is built in-tree (add_subdirectory) through ccache: a rebuild after touching our
# files never recompiles it (separate targets), and a fresh build dir hits the compiler cache.

set(SHOEHORN_LLAMA_NPM_PACKAGE "node-llama-cpp@3.21.1")
set(SHOEHORN_LLAMA_NPM_SHA256 "7a231d6bafa14142a1cbed9893d4ec5bc6041b2a5f5939a623accaab4203c11f")
set(SHOEHORN_LLAMA_COMMIT "80fb11ac73e66d89eae2c6a91d8a77428fa733ed")
# The llama.cpp release the bundle squashes (package/llama/binariesGithubRelease.json): prebuilt
# backend modules of the same npm release must name the same one (VulkanModule.cmake).
set(SHOEHORN_LLAMA_RELEASE "v0.4.0")

if(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
    set(_shoehorn_default_cache "$ENV{XDG_CACHE_HOME}/shoehorn")
else()
    set(_shoehorn_default_cache "$ENV{HOME}/.cache/shoehorn")
endif()
set(SHOEHORN_CACHE_DIR "${_shoehorn_default_cache}" CACHE PATH
    "Cache for the llama.cpp source (kept outside the source tree and git)")
set(SHOEHORN_LLAMA_SOURCE_DIR "" CACHE PATH
    "Use this llama.cpp checkout instead of fetching the pinned node-llama-cpp bundle")

# npm pack SPEC into the cache's download folder (once) and check the tarball's digest (ALGO: SHA256,
# SHA512); a mismatch removes it. Sets OUT to its path. HINT: what to do when npm fails.
function(shoehorn_npm_pack spec file algo expected hint out)
    find_program(NPM_EXECUTABLE npm REQUIRED)
    set(dl "${SHOEHORN_CACHE_DIR}/download")
    file(MAKE_DIRECTORY "${dl}")
    set(tgz "${dl}/${file}")
    if(NOT EXISTS "${tgz}")
        message(STATUS "Fetching ${spec} with npm pack")
        execute_process(COMMAND "${NPM_EXECUTABLE}" pack "${spec}" --loglevel=error
                        WORKING_DIRECTORY "${dl}" RESULT_VARIABLE rc OUTPUT_QUIET)
        if(NOT rc EQUAL 0 OR NOT EXISTS "${tgz}")
            message(FATAL_ERROR "npm pack ${spec} failed (${rc}). ${hint}")
        endif()
    endif()
    file(${algo} "${tgz}" sum)
    if(NOT sum STREQUAL expected)
        file(REMOVE "${tgz}")
        message(FATAL_ERROR "${algo} mismatch for ${tgz}: got ${sum}, expected ${expected}")
    endif()
    set(${out} "${tgz}" PARENT_SCOPE)
endfunction()

function(shoehorn_fetch_llama out_dir)
    set(src "${SHOEHORN_CACHE_DIR}/llama.cpp-${SHOEHORN_LLAMA_COMMIT}")
    if(EXISTS "${src}/CMakeLists.txt" AND EXISTS "${src}/.shoehorn-verified")
        set(${out_dir} "${src}" PARENT_SCOPE)
        return()
    endif()

    find_program(GIT_EXECUTABLE git REQUIRED)
    set(dl "${SHOEHORN_CACHE_DIR}/download")
    shoehorn_npm_pack("${SHOEHORN_LLAMA_NPM_PACKAGE}" node-llama-cpp-3.21.1.tgz SHA256 "${SHOEHORN_LLAMA_NPM_SHA256}"
                      "Set SHOEHORN_LLAMA_SOURCE_DIR to a llama.cpp checkout instead." tgz)

    set(unpack "${dl}/unpack")
    file(REMOVE_RECURSE "${unpack}")
    file(MAKE_DIRECTORY "${unpack}")
    execute_process(COMMAND ${CMAKE_COMMAND} -E tar xzf "${tgz}" package/llama/gitRelease.bundle
                            package/llama/binariesGithubRelease.json
                    WORKING_DIRECTORY "${unpack}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "Could not unpack llama/gitRelease.bundle from ${tgz}")
    endif()
    file(READ "${unpack}/package/llama/binariesGithubRelease.json" release_json)
    string(JSON release GET "${release_json}" release)
    if(NOT release STREQUAL SHOEHORN_LLAMA_RELEASE)
        message(FATAL_ERROR "${tgz} holds llama.cpp ${release}, expected ${SHOEHORN_LLAMA_RELEASE}")
    endif()

    file(REMOVE_RECURSE "${src}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" -c advice.detachedHead=false clone --quiet
                            "${unpack}/package/llama/gitRelease.bundle" "${src}"
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "git clone of the llama.cpp bundle failed")
    endif()
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${src}" rev-parse HEAD
                    OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT head STREQUAL SHOEHORN_LLAMA_COMMIT)
        message(FATAL_ERROR "llama.cpp bundle is at ${head}, expected ${SHOEHORN_LLAMA_COMMIT}")
    endif()
    file(REMOVE_RECURSE "${unpack}")
    file(WRITE "${src}/.shoehorn-verified" "${SHOEHORN_LLAMA_NPM_SHA256}\n")
    set(${out_dir} "${src}" PARENT_SCOPE)
endfunction()

if(SHOEHORN_LLAMA_SOURCE_DIR)
    if(NOT EXISTS "${SHOEHORN_LLAMA_SOURCE_DIR}/include/llama.h")
        message(FATAL_ERROR "SHOEHORN_LLAMA_SOURCE_DIR=${SHOEHORN_LLAMA_SOURCE_DIR} is not a llama.cpp checkout")
    endif()
    set(LLAMA_CPP_DIR "${SHOEHORN_LLAMA_SOURCE_DIR}")
else()
    shoehorn_fetch_llama(LLAMA_CPP_DIR)
endif()
message(STATUS "llama.cpp source: ${LLAMA_CPP_DIR}")

# ggml's backends as loadable modules (SHOEHORN_BACKEND_MODULES, the default), as llama.cpp's
# releases ship: ggml, llama and mtmd are shared libraries, the CPU backend is built for every
# x86-64 level (sse42 ... haswell ... zen4, sapphirerapids) and ggml loads the best one this CPU
# runs; RPC is a module too, and GPU backends are modules of their own packages (Vulkan:
# cmake/VulkanModule.cmake). Nothing is built for the build machine's CPU. Everything lands in
# bin/ beside the programs, where the engine looks first (engine/internal/backends.cpp); the
# package puts it in lib/shoehorn. SHOEHORN_NATIVE=ON is the old static build for this CPU only.
if(SHOEHORN_NATIVE AND SHOEHORN_BACKEND_MODULES)
    message(FATAL_ERROR "SHOEHORN_NATIVE=ON builds one static CPU backend for this machine: "
                        "set SHOEHORN_BACKEND_MODULES=OFF with it")
endif()
if(SHOEHORN_BACKEND_MODULES)
    set(BUILD_SHARED_LIBS ON CACHE BOOL "" FORCE)
    set(GGML_BACKEND_DL ON CACHE BOOL "" FORCE)
    set(GGML_CPU_ALL_VARIANTS ON CACHE BOOL "" FORCE)
    set(CMAKE_LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
else()
    set(BUILD_SHARED_LIBS OFF CACHE BOOL "" FORCE)
    set(GGML_BACKEND_DL OFF CACHE BOOL "" FORCE)
    set(GGML_CPU_ALL_VARIANTS OFF CACHE BOOL "" FORCE)
endif()
# The libraries, llama-bench, libmtmd and (cmake/LlamaServer.cmake) the server libraries: no
# examples, tests, downloads or TLS.
set(LLAMA_BUILD_COMMON ON CACHE BOOL "" FORCE)
set(LLAMA_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_TOOLS OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_EXAMPLES OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_SERVER OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_MTMD ON CACHE BOOL "" FORCE)
set(LLAMA_BUILD_APP OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_UI OFF CACHE BOOL "" FORCE)
set(LLAMA_OPENSSL OFF CACHE BOOL "" FORCE)
set(LLAMA_CURL OFF CACHE BOOL "" FORCE)
set(LLAMA_TOOLS_INSTALL OFF CACHE BOOL "" FORCE)
set(LLAMA_ALL_WARNINGS OFF CACHE BOOL "" FORCE)
set(LLAMA_FATAL_WARNINGS OFF CACHE BOOL "" FORCE)
set(GGML_CCACHE ON CACHE BOOL "" FORCE)
# ggml's own thread pools instead of OpenMP. libgomp shortens its spin-waits to 100 spins (then
# sleeps in the kernel) as soon as the process holds more OpenMP threads than there are cores,
# counting idle teams too; the chat and the local API each decode on a thread of their own, so
# with OpenMP each made the other's every barrier sleep: the API generated 94 tok/s against
# llama-bench's 139 on 2 cores (docs/benchmarks.md). Each context gets a persistent pool instead
# (internal/llamaparams.h CpuThreadPools), as llama-bench uses.
set(GGML_OPENMP OFF CACHE BOOL "" FORCE)
# ggml-rpc: another machine's devices over TCP (shoehorn-cli rpc-worker, --rpc); a few files.
set(GGML_RPC ON CACHE BOOL "" FORCE)
set(GGML_NATIVE ${SHOEHORN_NATIVE} CACHE BOOL "" FORCE)
set(GGML_CUDA ${SHOEHORN_CUDA} CACHE BOOL "" FORCE)
if(SHOEHORN_CUDA)
    set(GGML_CUDA_FA_ALL_QUANTS OFF CACHE BOOL "")
endif()

# Which CPU variants: "all" (the default, what a package ships) or a list. Each variant is a full
# compile of ggml-cpu (3.5 min on 2 cores here): tools/dev.sh builds x64 (any x86-64 CPU) and
# haswell (AVX2) to keep the test command short. ggml has no switch for it: each variant call in
# the fetched copy's ggml/src/CMakeLists.txt goes through shoehorn_cpu_variant (once, idempotent).
set(SHOEHORN_CPU_VARIANTS "all" CACHE STRING "CPU backend variants to build: all, or a list such as x64;haswell")
function(shoehorn_cpu_variant tag)
    if(SHOEHORN_CPU_VARIANTS STREQUAL "all" OR tag IN_LIST SHOEHORN_CPU_VARIANTS)
        ggml_add_cpu_backend_variant(${tag} ${ARGN})
    endif()
endfunction()
if(SHOEHORN_BACKEND_MODULES AND NOT SHOEHORN_CPU_VARIANTS STREQUAL "all")
    set(_ggml_src_cmake "${LLAMA_CPP_DIR}/ggml/src/CMakeLists.txt")
    file(READ "${_ggml_src_cmake}" _ggml_src)
    if(NOT _ggml_src MATCHES "shoehorn_cpu_variant")
        if(SHOEHORN_LLAMA_SOURCE_DIR)
            message(WARNING "SHOEHORN_CPU_VARIANTS needs the fetched llama.cpp copy; building every variant of "
                            "${SHOEHORN_LLAMA_SOURCE_DIR}")
        else()
            string(REGEX REPLACE "\n( +)ggml_add_cpu_backend_variant\\(" "\n\\1shoehorn_cpu_variant(" _ggml_src "${_ggml_src}")
            file(WRITE "${_ggml_src_cmake}" "${_ggml_src}")
        endif()
    endif()
endif()

add_subdirectory("${LLAMA_CPP_DIR}" "${CMAKE_BINARY_DIR}/llama.cpp" EXCLUDE_FROM_ALL SYSTEM)

# ggml's AMX matmul (compiled in by -march=native on Xeons with AMX) crashes in the first
# decode of Q4_K_M MoE models in this llama.cpp (ggml_backend_amx_mul_mat; reproduced here on the
# Qwen3-30B-A3B shape; upstream llama.cpp issue 20824). Off by default: those CPUs then use
# CPU_REPACK like every other x86 CPU. SHOEHORN_CPU_AMX=ON builds it in again.
option(SHOEHORN_CPU_AMX "Build ggml's AMX kernels (see cmake/LlamaCpp.cmake for why it is off)" OFF)
if(NOT SHOEHORN_CPU_AMX AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    include(CheckCXXCompilerFlag)
    check_cxx_compiler_flag(-mno-amx-int8 SHOEHORN_HAVE_NO_AMX_FLAG)
    # The static CPU backend, or the sapphirerapids module (the one variant built with AMX).
    foreach(_cpu ggml-cpu ggml-cpu-sapphirerapids)
        if(SHOEHORN_HAVE_NO_AMX_FLAG AND TARGET ${_cpu})
            target_compile_options(${_cpu} PRIVATE -mno-amx-int8 -mno-amx-tile -mno-amx-bf16)
        endif()
    endforeach()
endif()
add_subdirectory("${LLAMA_CPP_DIR}/tools/llama-bench" "${CMAKE_BINARY_DIR}/llama.cpp/tools/llama-bench"
                 EXCLUDE_FROM_ALL SYSTEM)
set_target_properties(llama-bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
# llama.cpp's own fit, the reference auto-tune is measured against (tools/gpu-bench.sh); built on demand.
add_subdirectory("${LLAMA_CPP_DIR}/tools/fit-params" "${CMAKE_BINARY_DIR}/llama.cpp/tools/fit-params"
                 EXCLUDE_FROM_ALL SYSTEM)
set_target_properties(llama-fit-params PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
# llama.cpp's batched-bench: the reference for several sequences decoded together (tools/api-bench.sh).
add_subdirectory("${LLAMA_CPP_DIR}/tools/batched-bench" "${CMAKE_BINARY_DIR}/llama.cpp/tools/batched-bench"
                 EXCLUDE_FROM_ALL SYSTEM)
set_target_properties(llama-batched-bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
# llama-bench is the reference our benchmarks compare against: build it with everything else.
add_custom_target(shoehorn_llama_bench ALL DEPENDS llama-bench)

include(${CMAKE_CURRENT_LIST_DIR}/LlamaServer.cmake)
if(SHOEHORN_BACKEND_MODULES AND SHOEHORN_VULKAN)
    include(${CMAKE_CURRENT_LIST_DIR}/VulkanModule.cmake)
endif()
if(SHOEHORN_BACKEND_MODULES AND SHOEHORN_CUDA_PACKAGE)
    include(${CMAKE_CURRENT_LIST_DIR}/CudaModule.cmake)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/LlamaRpc.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/LlamaFixes.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/GgmlLoader.cmake)
