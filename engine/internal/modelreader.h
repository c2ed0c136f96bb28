#pragma once

// Engine-internal: the steps of inspectModel() (modelinfo.cpp), each reading one part of a
// GGUF's metadata or tensor table into a ModelInfo. They run in the order declared here; a
// step that can fail returns the Error that stops the inspection.

#include "error.h"
#include "gguffile.h"
#include "modelinfo.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shoehorn::internal {

using GgufParts = std::vector<std::shared_ptr<GgufFile>>;

// Opens every file of a (possibly split) model, in order; the first part's split.count must
// agree with the number of parts the name promises.
Result<GgufParts> openParts(const std::vector<std::string> &files);

// general.*: the architecture (required), the name and the file type.
std::optional<Error> readGeneral(const GgufFile &g, ModelInfo &info);

// ARCH.*: layers, sizes, attention heads, context, vocabulary and experts, with the defaults
// llama.cpp derives when a key is missing.
void readHyperparameters(const GgufFile &g, ModelInfo &info);

// ARCH.*: the sliding window (and its pattern), the full-attention interval and the SSM sizes.
void readWindowAndRecurrent(const GgufFile &g, ModelInfo &info);

// The chat template and the general.sampling.* defaults some GGUFs carry.
void readChatDefaults(const GgufFile &g, ModelInfo &info);

// Rejects hyperparameters that are missing, absurd or contradict each other.
std::optional<Error> checkHyperparameters(const ModelInfo &info);

// Every part's tensors, classified into layers: per-layer and global bytes, parameter counts.
std::optional<Error> readTensorTable(const GgufParts &parts, ModelInfo &info);

// What needs the whole tensor table: which layers keep a KV cache, which use the sliding
// window, and the vocabulary size when the metadata had none.
void finishLayers(ModelInfo &info);

} // namespace shoehorn::internal
