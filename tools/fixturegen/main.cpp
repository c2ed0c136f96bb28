// shoehorn-fixturegen: writes test GGUF models (random weights, small tokenizer, ChatML template).
#include "fixtures.h"

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char **argv)
{
    if (argc < 3 || std::strcmp(argv[1], "--help") == 0) {
        std::fprintf(stderr, "usage: %s PRESET OUT.gguf [--layers N] [--seed N] [--splits N] [--alignment-key 1] [--sampling-defaults 1] [--context-length N]\npresets:", argv[0]);
        for (const auto &p : shoehorn::fixtures::presetNames())
            std::fprintf(stderr, " %s", p.c_str());
        std::fprintf(stderr, "\n");
        return argc < 3 ? 2 : 0;
    }
    const std::string preset = argv[1];
    if (preset.starts_with("mmproj-")) {
        auto p = preset == "mmproj-tiny-mismatch"    ? shoehorn::fixtures::tinyProjectorMismatch()
                 : preset == "mmproj-qwen35-35b-a3b" ? shoehorn::fixtures::qwen35_35b_a3b_projector()
                                                     : shoehorn::fixtures::tinyProjector();
        if (preset == "mmproj-tiny-f32")
            p.type = "f32";
        else if (preset != "mmproj-tiny" && preset != "mmproj-tiny-mismatch" && preset != "mmproj-qwen35-35b-a3b") {
            std::fprintf(stderr, "unknown preset %s\n", argv[1]);
            return 2;
        }
        const std::string err = shoehorn::fixtures::writeProjector(p, argv[2]);
        if (!err.empty())
            std::fprintf(stderr, "error: %s\n", err.c_str());
        return err.empty() ? 0 : 1;
    }
    shoehorn::fixtures::Spec spec;
    if (!shoehorn::fixtures::presetByName(argv[1], spec)) {
        std::fprintf(stderr, "unknown preset %s\n", argv[1]);
        return 2;
    }
    for (int i = 3; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        const unsigned long v = std::stoul(argv[i + 1]);
        if (k == "--layers")
            spec.layers = static_cast<uint32_t>(v);
        else if (k == "--seed")
            spec.seed = v;
        else if (k == "--splits")
            spec.splits = static_cast<uint32_t>(v);
        else if (k == "--alignment-key")
            spec.alignmentKey = v != 0;
        else if (k == "--context-length") // ARCH.context_length (0: as a broken file has it)
            spec.contextLength = static_cast<uint32_t>(v);
        else if (k == "--sampling-defaults") // general.sampling.*: temp 0.6, top-p 0.95, top-k 20, min-p 0
            spec.samplingDefaults = v != 0;
        else {
            std::fprintf(stderr, "unknown option %s\n", k.c_str());
            return 2;
        }
    }
    const std::string err = shoehorn::fixtures::write(spec, argv[2]);
    if (!err.empty()) {
        std::fprintf(stderr, "error: %s\n", err.c_str());
        return 1;
    }
    return 0;
}
