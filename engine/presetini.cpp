#include "presetini.h"

#include "guarded.h"
#include "validate.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

namespace shoehorn {

namespace {

std::string trim(const std::string &s)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::string unquote(std::string v)
{
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front())
        return v.substr(1, v.size() - 2);
    return v;
}

bool parseBool(const std::string &v, bool &out)
{
    std::string l = v;
    std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (l == "true" || l == "on" || l == "1" || l == "yes" || l == "enabled") out = true;
    else if (l == "false" || l == "off" || l == "0" || l == "no" || l == "disabled") out = false;
    else return false;
    return true;
}

template <typename T>
bool parseNumber(const std::string &v, T &out)
{
    std::istringstream in(v);
    in >> out;
    return !in.fail() && in.eof();
}

// The keys whose value needs more than a number or a boolean. Each takes the key (returns
// true) and sets `error` when the value is bad.
bool applyCacheType(ModelPreset &p, const std::string &key, const std::string &value, std::string &error)
{
    if (!isKvCacheType(value)) {
        error = "unknown KV cache type: " + value;
        return true;
    }
    (key == "ctk" || key == "cache-type-k" ? p.typeK : p.typeV) = value;
    return true;
}

bool applyFlashAttention(ModelPreset &p, const std::string &value, std::string &error)
{
    FlashAttention f;
    if (!parseFlashAttention(value, f))
        error = "flash-attn takes on, off or auto: " + value;
    else
        p.flashAttention = f;
    return true;
}

bool applyLoadMode(ModelPreset &p, const std::string &key, const std::string &value, std::string &error)
{
    bool b = false;
    if (!parseBool(value, b)) {
        error = "not a boolean: " + value;
        return true;
    }
    if (key == "mlock" && b) p.loadMode = LoadMode::Mlock;
    else if (key == "no-mmap") p.loadMode = b ? LoadMode::NoMmap : LoadMode::Mmap;
    else if (key == "mmap") p.loadMode = b ? LoadMode::Mmap : LoadMode::NoMmap;
    return true;
}

bool applyTemplateKwargs(ModelPreset &p, const std::string &value, std::string &error)
{
    const auto j = nlohmann::json::parse(value, nullptr, false);
    if (!j.is_object()) {
        error = "chat-template-kwargs is not a JSON object";
        return true;
    }
    for (const auto &[k, v] : j.items())
        p.templateKwargs[k] = v.dump();
    return true;
}

// llama-server flag names (long and short) a preset may use, mapped to one setter each.
bool applyKey(ModelPreset &p, const std::string &key, const std::string &value, std::string &error)
{
    auto num = [&](auto &field) {
        using T = typename std::remove_reference_t<decltype(field)>::value_type;
        T v{};
        if (!parseNumber(value, v)) {
            error = "not a number: " + value;
            return true;
        }
        field = v;
        return true;
    };
    auto flag = [&](std::optional<bool> &field) {
        bool b = false;
        if (!parseBool(value, b))
            error = "not a boolean: " + value;
        else
            field = b;
        return true;
    };
    if (key == "model" || key == "m") return p.model = value, true;
    if (key == "mmproj") return p.mmproj = value, true;
    if (key == "load-on-startup") return flag(p.loadOnStartup);
    if (key == "c" || key == "ctx-size") return num(p.contextSize);
    if (key == "b" || key == "batch-size") return num(p.batchSize);
    if (key == "ub" || key == "ubatch-size") return num(p.ubatchSize);
    if (key == "ngl" || key == "n-gpu-layers" || key == "gpu-layers") {
        if (value == "all" || value == "auto")
            return p.gpuLayers = -1, true;
        return num(p.gpuLayers);
    }
    if (key == "ncmoe" || key == "n-cpu-moe") return num(p.cpuMoeLayers);
    if (key == "t" || key == "threads") return num(p.threads);
    if (key == "np" || key == "parallel") return num(p.parallel);
    if (key == "temp" || key == "temperature") return num(p.temperature);
    if (key == "top-p") return num(p.topP);
    if (key == "top-k") return num(p.topK);
    if (key == "min-p") return num(p.minP);
    if (key == "presence-penalty") return num(p.presencePenalty);
    if (key == "repeat-penalty") return num(p.repeatPenalty);
    if (key == "s" || key == "seed") return num(p.seed);
    if (key == "spec-type") {
        SpeculationSettings s;
        s.types = value;
        s.draftModel = "x.gguf"; // a type that needs a draft model is not refused here for it
        if (const Error e = validate(s))
            error = e.detail;
        else
            p.specType = value;
        return true;
    }
    if (key == "spec-draft-model" || key == "md" || key == "model-draft") return p.draftModel = value, true;
    if (key == "spec-draft-n-max" || key == "draft" || key == "draft-n" || key == "draft-max") return num(p.draftMax);
    if (key == "spec-draft-n-min" || key == "draft-min" || key == "draft-n-min") return num(p.draftMin);
    if (key == "spec-ngram-simple-size-n") return num(p.ngramSizeN);
    if (key == "device" || key == "dev") {
        std::vector<std::string> names;
        if (!parseDeviceList(value, names))
            error = "device takes device names separated by commas, or none: " + value;
        else
            p.devices = std::move(names);
        return true;
    }
    if (key == "ctk" || key == "cache-type-k" || key == "ctv" || key == "cache-type-v")
        return applyCacheType(p, key, value, error);
    if (key == "fa" || key == "flash-attn")
        return applyFlashAttention(p, value, error);
    if (key == "mlock" || key == "no-mmap" || key == "mmap")
        return applyLoadMode(p, key, value, error);
    if (key == "chat-template-kwargs")
        return applyTemplateKwargs(p, value, error);
    return false;
}

template <typename T>
void take(std::optional<T> &mine, const std::optional<T> &theirs)
{
    if (theirs)
        mine = theirs;
}

} // namespace

ModelPreset ModelPreset::overlaidWith(const ModelPreset &o) const
{
    ModelPreset r = *this;
    r.name = o.name;
    take(r.model, o.model);
    take(r.mmproj, o.mmproj);
    take(r.loadOnStartup, o.loadOnStartup);
    take(r.gpuLayers, o.gpuLayers);
    take(r.cpuMoeLayers, o.cpuMoeLayers);
    take(r.loadMode, o.loadMode);
    take(r.contextSize, o.contextSize);
    take(r.batchSize, o.batchSize);
    take(r.ubatchSize, o.ubatchSize);
    take(r.typeK, o.typeK);
    take(r.typeV, o.typeV);
    take(r.flashAttention, o.flashAttention);
    take(r.threads, o.threads);
    take(r.parallel, o.parallel);
    take(r.temperature, o.temperature);
    take(r.topP, o.topP);
    take(r.topK, o.topK);
    take(r.minP, o.minP);
    take(r.presencePenalty, o.presencePenalty);
    take(r.repeatPenalty, o.repeatPenalty);
    take(r.seed, o.seed);
    take(r.specType, o.specType);
    take(r.draftModel, o.draftModel);
    take(r.draftMax, o.draftMax);
    take(r.draftMin, o.draftMin);
    take(r.ngramSizeN, o.ngramSizeN);
    take(r.devices, o.devices);
    for (const auto &[k, v] : o.templateKwargs)
        r.templateKwargs[k] = v;
    return r;
}

void ModelPreset::applyTo(LoadSettings &load, ContextSettings &context, GenerationOptions &g) const
{
    if (gpuLayers) load.gpuLayers = *gpuLayers;
    if (cpuMoeLayers) load.cpuMoeLayers = *cpuMoeLayers;
    if (loadMode) load.loadMode = *loadMode;
    if (contextSize) context.contextSize = *contextSize;
    if (batchSize) context.batchSize = *batchSize;
    if (ubatchSize) context.ubatchSize = *ubatchSize;
    if (typeK) context.typeK = *typeK;
    if (typeV) context.typeV = *typeV;
    if (flashAttention) context.flashAttention = *flashAttention;
    if (threads) context.threads = *threads;
    if (temperature) g.sampling.temperature = *temperature;
    if (topP) g.sampling.topP = *topP;
    if (topK) g.sampling.topK = *topK;
    if (minP) g.sampling.minP = *minP;
    if (presencePenalty) g.sampling.presencePenalty = *presencePenalty;
    if (repeatPenalty) g.sampling.repeatPenalty = *repeatPenalty;
    if (seed) g.sampling.seed = *seed;
    if (specType) context.speculation.types = *specType;
    if (draftModel) context.speculation.draftModel = *draftModel;
    if (draftMax) context.speculation.draftMax = *draftMax;
    if (draftMin) context.speculation.draftMin = *draftMin;
    if (ngramSizeN) context.speculation.ngramSizeN = *ngramSizeN;
    if (devices) load.devices = *devices;
    load.mtpLayers = context.speculation.mtp();
    for (const auto &[k, v] : templateKwargs) {
        if (k == "enable_thinking")
            g.enableThinking = v == "true";
        else
            g.templateKwargs[k] = v;
    }
}

Result<PresetFile> parsePresetIni(const std::string &text)
{
    return internal::guarded(ErrorCode::InvalidArgument, [&]() -> Result<PresetFile> {
        PresetFile file;
        std::vector<ModelPreset> sections;
        ModelPreset *current = nullptr; // nullptr: before any section (global keys)
        std::istringstream in(text);
        std::string raw;
        int lineNo = 0;
        bool sawSection = false;
        while (std::getline(in, raw)) {
            ++lineNo;
            const std::string line = trim(raw);
            if (line.empty() || line[0] == ';' || line[0] == '#')
                continue;
            if (line.front() == '[') {
                if (line.back() != ']')
                    return Error{ErrorCode::Corrupt, "line " + std::to_string(lineNo) + ": unterminated section"};
                const std::string name = trim(line.substr(1, line.size() - 2));
                sawSection = true;
                if (name == "*") {
                    current = &file.defaults;
                    file.defaults.name = "*";
                } else {
                    sections.push_back(ModelPreset{});
                    sections.back().name = name;
                    current = &sections.back();
                }
                continue;
            }
            const auto eq = line.find('=');
            if (eq == std::string::npos) {
                file.issues.push_back({lineNo, current ? current->name : "", line, "not a key = value line"});
                continue;
            }
            const std::string key = trim(line.substr(0, eq));
            const std::string value = unquote(trim(line.substr(eq + 1)));
            if (!current) {
                if (key == "version") {
                    if (!parseNumber(value, file.version) || file.version != 1)
                        file.issues.push_back({lineNo, "", key, "unsupported preset version " + value});
                } else {
                    file.issues.push_back({lineNo, "", key, "key outside a section"});
                }
                continue;
            }
            std::string error;
            if (!applyKey(*current, key, value, error))
                file.issues.push_back({lineNo, current->name, key, "unknown key, not imported"});
            else if (!error.empty())
                file.issues.push_back({lineNo, current->name, key, error});
        }
        if (!sawSection)
            return Error{ErrorCode::Corrupt, "no [sections]: not a llama-server preset file"};
        for (const auto &s : sections)
            file.models.push_back(file.defaults.overlaidWith(s));
        return file;
    });
}

} // namespace shoehorn
