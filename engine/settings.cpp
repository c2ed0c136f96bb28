#include "settings.h"

#include <common.h>
#include <ggml.h>

#include <llama.h>

#include <charconv>
#include <cstdio>
#include <thread>

namespace shoehorn {

int physicalCoreCount()
{
    const int n = common_cpu_get_num_physical_cores();
    if (n > 0)
        return n;
    const unsigned hc = std::thread::hardware_concurrency();
    return hc > 1 ? static_cast<int>(hc / 2) : 1;
}

const char *loadModeName(LoadMode m)
{
    switch (m) {
    case LoadMode::Mmap: return "mmap";
    case LoadMode::NoMmap: return "no-mmap";
    case LoadMode::Mlock: return "mlock";
    }
    return "mmap";
}

const char *flashAttentionName(FlashAttention f)
{
    switch (f) {
    case FlashAttention::Auto: return "auto";
    case FlashAttention::On: return "on";
    case FlashAttention::Off: return "off";
    }
    return "auto";
}

bool parseLoadMode(const std::string &s, LoadMode &out)
{
    if (s == "mmap") out = LoadMode::Mmap;
    else if (s == "no-mmap") out = LoadMode::NoMmap;
    else if (s == "mlock") out = LoadMode::Mlock;
    else return false;
    return true;
}

bool parseFlashAttention(const std::string &s, FlashAttention &out)
{
    if (s == "auto") out = FlashAttention::Auto;
    else if (s == "on" || s == "1" || s == "true") out = FlashAttention::On;
    else if (s == "off" || s == "0" || s == "false") out = FlashAttention::Off;
    else return false;
    return true;
}

bool isKvCacheType(const std::string &s)
{
    for (const char *t : {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"})
        if (s == t)
            return true;
    return false;
}

int kvCacheGgmlType(const std::string &s)
{
    if (s == "f32") return GGML_TYPE_F32;
    if (s == "bf16") return GGML_TYPE_BF16;
    if (s == "q8_0") return GGML_TYPE_Q8_0;
    if (s == "q4_0") return GGML_TYPE_Q4_0;
    if (s == "q4_1") return GGML_TYPE_Q4_1;
    if (s == "iq4_nl") return GGML_TYPE_IQ4_NL;
    if (s == "q5_0") return GGML_TYPE_Q5_0;
    if (s == "q5_1") return GGML_TYPE_Q5_1;
    return GGML_TYPE_F16;
}

std::vector<std::string> splitDeviceList(const std::string &s)
{
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= s.size()) {
        const size_t end = std::min(s.find_first_of(",/", start), s.size());
        parts.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

bool parseTensorSplit(const std::string &s, std::vector<float> &out)
{
    std::vector<float> parts;
    for (const std::string &part : splitDeviceList(s)) {
        float v = 0;
        const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (ec != std::errc() || ptr != part.data() + part.size() || !(v >= 0) || v > 1e9f)
            return false;
        parts.push_back(v);
    }
    if (parts.size() >= llama_max_devices())
        return false;
    out = std::move(parts);
    return true;
}

std::string tensorSplitText(const std::vector<float> &split)
{
    std::string text;
    for (float f : split) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", double(f));
        if (!text.empty())
            text += ',';
        text += buf;
    }
    return text;
}

bool parseDeviceList(const std::string &s, std::vector<std::string> &out)
{
    std::vector<std::string> names;
    size_t start = 0;
    while (true) {
        const size_t end = s.find(',', start);
        names.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    for (const std::string &n : names)
        if (n.empty() || n.find_first_of(" \t") != std::string::npos || (n == "none" && names.size() > 1))
            return false;
    out = std::move(names);
    return true;
}

std::string deviceListText(const std::vector<std::string> &devices)
{
    std::string text;
    for (const std::string &d : devices)
        text += (text.empty() ? "" : ",") + d;
    return text;
}

} // namespace shoehorn
