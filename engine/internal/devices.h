#pragma once

// Engine-internal: the GPUs ggml's registry has, and the list a model is loaded with.

#include "hardware.h"

#include <ggml-backend.h>

#include <optional>
#include <vector>

namespace shoehorn::internal {

// Every GPU-type device registered, sorted as llama.cpp sorts them (remote, discrete,
// integrated); name, description, cardId and remote only (no memory asked).
void registeredGpus(std::vector<GpuInfo> &remote, std::vector<GpuInfo> &discrete, std::vector<GpuInfo> &integrated);

// llama_model_params::devices for `load` (null-terminated), or nothing for llama.cpp's own choice.
std::optional<std::vector<ggml_backend_dev_t>> modelDeviceHandles(const LoadSettings &load);

} // namespace shoehorn::internal
