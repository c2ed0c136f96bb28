// The presets: tiny models that run end to end, and full-size shape fixtures that copy a
// named real model's tensor shapes and quantization mix.
#include "fixtures.h"

namespace shoehorn::fixtures {

Spec tinyLlama()
{
    Spec s;
    s.arch = "llama";
    s.name = "Shoehorn Tiny Llama";
    return s;
}

Spec tinyQwen3Moe()
{
    Spec s;
    s.arch = "qwen3moe";
    s.name = "Shoehorn Tiny Qwen3 MoE";
    s.experts = 8;
    s.expertsUsed = 2;
    s.expertFf = 32;
    s.ff = 128;
    return s;
}

Spec tinyThinking()
{
    Spec s = tinyQwen3Moe();
    s.name = "Shoehorn Tiny Thinking MoE";
    s.thinkingTemplate = true;
    s.samplingDefaults = true; // like Qwen's own GGUFs
    return s;
}

Spec tinyApi()
{
    Spec s = tinyLlama();
    s.name = "Shoehorn Tiny API";
    s.controlHighBytes = true;
    return s;
}

// A draft model for tiny-api (speculative decoding's -md): the same vocabulary and template, half
// its layers, other random weights, so its drafts are sometimes wrong.
Spec tinyApiDraft()
{
    Spec s = tinyApi();
    s.name = "Shoehorn Tiny API draft";
    s.layers = 2;
    s.seed = 7;
    return s;
}

// A tiny Qwen3.5-style model (hybrid attention + gated delta net MoE, M-RoPE sections) for the
// tiny projector: the pair exercises what Qwen3.5-35B-A3B with its mmproj does, image positions
// included. Replies are valid UTF-8 so the API can serve it.
Spec tinyVision()
{
    Spec s;
    s.arch = "qwen35moe";
    s.name = "Shoehorn Tiny Vision (Qwen3.5 MoE shape)";
    s.layers = 4;
    s.headDim = 16;
    s.ropeDims = 16;
    s.experts = 4;
    s.expertsUsed = 2;
    s.expertFf = 32;
    s.sharedExpertFf = 32;
    s.ff = 32;
    s.ssmConvKernel = 4;
    s.ssmStateSize = 16;
    s.ssmGroupCount = 2;
    s.ssmTimeStepRank = 4;
    s.fullAttentionInterval = 2;
    s.controlHighBytes = true;
    s.contextLength = 16384; // room for several 1024x1024 pictures (llama.cpp caps a slot here)
    return s;
}

// tiny-vision's model with one MTP block: llama.cpp's --spec-type draft-mtp runs on it.
Spec tinyQwen35MoeMtp()
{
    Spec s = tinyVision();
    s.name = "Shoehorn Tiny Qwen3.5 MoE with MTP";
    s.mtpLayers = 1;
    return s;
}

Spec qwen3_30b_a3b()
{
    Spec s;
    s.arch = "qwen3moe";
    s.name = "Qwen3-30B-A3B (shape fixture)";
    s.layers = 48;
    s.embd = 2048;
    s.heads = 32;
    s.headsKv = 4;
    s.headDim = 128;
    s.ff = 6144;
    s.experts = 128;
    s.expertsUsed = 8;
    s.expertFf = 768;
    s.contextLength = 40960;
    s.vocab = 151936;
    s.quant = "q4_k_m";
    s.fill = Fill::Sparse;
    return s;
}

Spec qwen3_30b_a3b_random()
{
    Spec s = qwen3_30b_a3b();
    s.name = "Qwen3-30B-A3B (random weights)";
    s.fill = Fill::Fast;
    return s;
}

Spec llama3_8b()
{
    Spec s;
    s.arch = "llama";
    s.name = "Llama-3.1-8B (shape fixture)";
    s.layers = 32;
    s.embd = 4096;
    s.heads = 32;
    s.headsKv = 8;
    s.headDim = 128;
    s.ff = 14336;
    s.contextLength = 131072;
    s.vocab = 128256;
    s.quant = "q4_k_m";
    s.fill = Fill::Sparse;
    return s;
}

Spec qwen35_35b_a3b()
{
    Spec s;
    s.arch = "qwen35moe";
    s.name = "Qwen3.5-35B-A3B (shape fixture)";
    s.layers = 40;
    s.embd = 2048;
    s.heads = 16;
    s.headsKv = 2;
    s.headDim = 256;
    s.ropeDims = 64;
    s.ff = 512;
    s.experts = 256;
    s.expertsUsed = 8;
    s.expertFf = 512;
    s.sharedExpertFf = 512;
    s.ssmConvKernel = 4;
    s.ssmStateSize = 128;
    s.ssmGroupCount = 16;
    s.ssmTimeStepRank = 32;
    s.fullAttentionInterval = 4;
    s.contextLength = 262144;
    s.vocab = 248320;
    s.quant = "q4_k_m";
    s.fill = Fill::Sparse;
    return s;
}

// Converted by the pinned llama.cpp (which keeps the MTP block unless --no-mtp), the real model
// has 41 blocks: 40 trunk blocks and the MTP block 40.
Spec qwen35_35b_a3b_mtp()
{
    Spec s = qwen35_35b_a3b();
    s.name = "Qwen3.5-35B-A3B with MTP (shape fixture)";
    s.mtpLayers = 1;
    return s;
}

Spec gemma3_12b()
{
    Spec s;
    s.arch = "gemma3";
    s.name = "Gemma-3-12B (shape fixture)";
    s.layers = 48;
    s.embd = 3840;
    s.heads = 16;
    s.headsKv = 8;
    s.headDim = 256;
    s.ff = 15360;
    s.slidingWindow = 1024;
    s.contextLength = 131072;
    s.vocab = 262144;
    s.quant = "q4_k_m";
    s.fill = Fill::Sparse;
    s.tiedOutput = true; // like the real files: token_embd is Q6_K and there is no output.weight
    return s;
}

Spec gemma3_12b_q4kEmbd()
{
    Spec s = gemma3_12b();
    s.name = "Gemma-3-12B, tied Q4_K embedding (shape fixture)";
    s.tiedEmbeddingType = false;
    return s;
}

Spec llama32_3b()
{
    Spec s = llama3_8b();
    s.name = "Llama-3.2-3B (shape fixture)";
    s.layers = 28;
    s.embd = 3072;
    s.heads = 24;
    s.headsKv = 8;
    s.ff = 8192;
    s.tiedOutput = true;
    return s;
}

Spec benchQwen3Moe()
{
    Spec s = qwen3_30b_a3b();
    s.name = "Shoehorn bench MoE (Qwen3-30B-A3B layer shapes, 2 layers)";
    s.layers = 2; // about 700 MB: big enough that a measurement is not noise, small enough to write
    s.vocab = 32000;
    s.fill = Fill::Random;
    s.weightScale = 0.02f;
    return s;
}

// The bench model for the API: llama-server's chat parser fails replies that are not valid
// UTF-8, which random weights produce; with the high byte tokens CONTROL they cannot.
Spec benchQwen3MoeApi()
{
    Spec s = benchQwen3Moe();
    s.name = "Shoehorn bench MoE for the API (valid UTF-8 replies)";
    s.controlHighBytes = true;
    return s;
}

// Speculation's benchmark model (#29): Qwen3.5-35B-A3B's layer shapes, two trunk layers (one
// gated delta net, one full attention) and its MTP block, random weights (about 1.4 GB), replies
// valid UTF-8 for the API. Random weights accept no draft: benchmarks use llama.cpp's synthetic
// acceptance (--spec-synth-len).
Spec benchQwen35MoeMtp()
{
    Spec s = qwen35_35b_a3b_mtp();
    s.name = "Shoehorn bench Qwen3.5 MoE with MTP (35B-A3B layer shapes, 2 layers + MTP)";
    s.layers = 2;
    s.fullAttentionInterval = 2;
    s.vocab = 32000;
    s.fill = Fill::Random;
    s.weightScale = 0.02f;
    s.controlHighBytes = true;
    return s;
}

std::vector<std::string> presetNames()
{
    return {"tiny-llama", "tiny-qwen3moe", "tiny-thinking", "tiny-api", "tiny-api-draft", "tiny-vision", "tiny-qwen35moe-mtp",
            "qwen3-30b-a3b", "qwen3-30b-a3b-random", "qwen35-35b-a3b", "qwen35-35b-a3b-mtp", "gemma3-12b",
            "gemma3-12b-q4k-embd", "llama3-8b", "llama32-3b", "bench-qwen3moe", "bench-qwen3moe-api", "bench-qwen35moe-mtp", "mmproj-tiny",
            "mmproj-tiny-f32", "mmproj-tiny-mismatch", "mmproj-qwen35-35b-a3b"};
}

bool presetByName(const std::string &name, Spec &out)
{
    if (name == "tiny-llama") out = tinyLlama();
    else if (name == "tiny-qwen3moe") out = tinyQwen3Moe();
    else if (name == "tiny-thinking") out = tinyThinking();
    else if (name == "tiny-api") out = tinyApi();
    else if (name == "tiny-vision") out = tinyVision();
    else if (name == "tiny-api-draft") out = tinyApiDraft();
    else if (name == "tiny-qwen35moe-mtp") out = tinyQwen35MoeMtp();
    else if (name == "qwen3-30b-a3b") out = qwen3_30b_a3b();
    else if (name == "qwen3-30b-a3b-random") out = qwen3_30b_a3b_random();
    else if (name == "llama3-8b") out = llama3_8b();
    else if (name == "qwen35-35b-a3b") out = qwen35_35b_a3b();
    else if (name == "qwen35-35b-a3b-mtp") out = qwen35_35b_a3b_mtp();
    else if (name == "gemma3-12b") out = gemma3_12b();
    else if (name == "gemma3-12b-q4k-embd") out = gemma3_12b_q4kEmbd();
    else if (name == "llama32-3b") out = llama32_3b();
    else if (name == "bench-qwen3moe") out = benchQwen3Moe();
    else if (name == "bench-qwen3moe-api") out = benchQwen3MoeApi();
    else if (name == "bench-qwen35moe-mtp") out = benchQwen35MoeMtp();
    else return false;
    return true;
}

} // namespace shoehorn::fixtures
