# ggml's module loader without the current directory. When no folder is given,
# ggml_backend_load_all() looks for libggml-*.so in the program's folder and then in the current
# directory, and llama.cpp's argument parser calls it for -ot, --device, --list-devices and --rpc
# (shoehorn-cli serve). A libggml-cpu-*.so left in the folder a user starts Shoehorn from would be
# loaded and run. Shoehorn loads its modules from its own folder (engine/internal/backends.cpp);
# this copy of ggml-backend-reg.cpp only drops the current directory from the default search.
# Included after llama.cpp's add_subdirectory (LlamaCpp.cmake); uses shoehorn_server_patch.

if(NOT SHOEHORN_BACKEND_MODULES)
    return()
endif()
set(_reg_in "${LLAMA_CPP_DIR}/ggml/src/ggml-backend-reg.cpp")
set(_reg_out "${CMAKE_BINARY_DIR}/ggml-loader-shoehorn/ggml-backend-reg.cpp")
file(READ "${_reg_in}" _reg_cpp)
shoehorn_server_patch(_reg_cpp ggml-backend-reg.cpp
"        } else {
            search_paths.push_back(cwd);
        }"
"        } else {
            (void)cwd; // shoehorn: never load modules from the current directory (cmake/GgmlLoader.cmake)
        }")
file(CONFIGURE OUTPUT "${_reg_out}" CONTENT "${_reg_cpp}" @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_reg_in}")
get_target_property(_ggml_sources ggml SOURCES)
list(TRANSFORM _ggml_sources REPLACE "^(.*/)?ggml-backend-reg\\.cpp$" "${_reg_out}")
set_property(TARGET ggml PROPERTY SOURCES ${_ggml_sources})
# The copy includes ggml's private headers as the original does.
target_include_directories(ggml PRIVATE "${LLAMA_CPP_DIR}/ggml/src")
