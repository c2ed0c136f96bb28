#include "cudacards.h"

#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <set>

namespace shoehorn::internal {

namespace {

// The fatbin layout (NVIDIA's fatbinary container, as cuobjdump reads it): a header (magic
// 0xBA55ED50, version, header size, size of the entries), then entries, each a header (kind: 1
// PTX, 2 machine code; header size; payload size; the architecture at byte 28) and its payload.
constexpr uint32_t kFatbinMagic = 0xBA55ED50;

template <typename T>
bool readAt(std::ifstream &in, uint64_t at, T &out)
{
    in.seekg(static_cast<std::streamoff>(at));
    return static_cast<bool>(in.read(reinterpret_cast<char *>(&out), sizeof(T)));
}

// The file offset and size of the section `name` of a 64-bit ELF file.
bool findSection(std::ifstream &in, const char *name, uint64_t &offset, uint64_t &size)
{
    Elf64_Ehdr eh{};
    if (!readAt(in, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shstrndx >= eh.e_shnum)
        return false;
    Elf64_Shdr names{};
    if (!readAt(in, eh.e_shoff + uint64_t(eh.e_shstrndx) * sizeof(Elf64_Shdr), names))
        return false;
    for (uint16_t i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr sh{};
        if (!readAt(in, eh.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr), sh))
            return false;
        char buf[32] = {};
        in.seekg(static_cast<std::streamoff>(names.sh_offset + sh.sh_name));
        in.read(buf, sizeof(buf) - 1);
        if (std::strcmp(buf, name) == 0) {
            offset = sh.sh_offset;
            size = sh.sh_size;
            return true;
        }
    }
    return false;
}

} // namespace

std::vector<CudaCode> cudaModuleCode(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    uint64_t offset = 0, size = 0;
    if (!in || !findSection(in, ".nv_fatbin", offset, size))
        return {};
    std::set<std::pair<bool, int>> seen;
    uint64_t p = offset;
    const uint64_t end = offset + size;
    while (p + 16 <= end) {
        uint32_t magic = 0;
        uint16_t headerSize = 0;
        uint64_t entriesSize = 0;
        if (!readAt(in, p, magic) || !readAt(in, p + 6, headerSize) || !readAt(in, p + 8, entriesSize))
            break;
        if (magic != kFatbinMagic) {
            p += 8; // fatbins are 8-byte aligned within the section
            continue;
        }
        uint64_t q = p + headerSize;
        const uint64_t last = std::min(end, q + entriesSize);
        while (q + 32 <= last) {
            uint16_t kind = 0;
            uint32_t entryHeader = 0, payload = 0, arch = 0;
            if (!readAt(in, q, kind) || !readAt(in, q + 4, entryHeader) || !readAt(in, q + 8, payload) ||
                !readAt(in, q + 28, arch) || entryHeader == 0)
                break;
            if (kind == 1 || kind == 2)
                seen.insert({kind == 1, static_cast<int>(arch)});
            q += uint64_t(entryHeader) + payload;
        }
        p = std::max(p + 8, last);
    }
    std::vector<CudaCode> code;
    for (const auto &[ptx, arch] : seen)
        code.push_back({ptx, arch});
    return code;
}

bool cudaRuns(const std::vector<CudaCode> &code, int major, int minor)
{
    const int card = major * 10 + minor;
    return std::any_of(code.begin(), code.end(), [&](const CudaCode &c) {
        if (c.ptx)
            return c.arch <= card;
        return c.arch / 10 == major && (major >= 9 ? c.arch == card : c.arch % 10 <= minor);
    });
}

std::string cudaArchList(const std::vector<CudaCode> &code)
{
    std::set<int> archs;
    for (const CudaCode &c : code)
        archs.insert(c.arch);
    std::string out;
    for (const int a : archs)
        out += (out.empty() ? "" : ", ") + std::to_string(a / 10) + "." + std::to_string(a % 10);
    return out;
}

NvidiaDriver queryNvidiaDriver()
{
    NvidiaDriver d;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return d;
    using Device = void *;
    const auto sym = [lib](const char *name) { return dlsym(lib, name); };
    const auto init = reinterpret_cast<int (*)()>(sym("nvmlInit_v2"));
    const auto shutdown = reinterpret_cast<int (*)()>(sym("nvmlShutdown"));
    const auto version = reinterpret_cast<int (*)(int *)>(sym("nvmlSystemGetCudaDriverVersion_v2"));
    const auto count = reinterpret_cast<int (*)(unsigned *)>(sym("nvmlDeviceGetCount_v2"));
    const auto byIndex = reinterpret_cast<int (*)(unsigned, Device *)>(sym("nvmlDeviceGetHandleByIndex_v2"));
    const auto capability = reinterpret_cast<int (*)(Device, int *, int *)>(sym("nvmlDeviceGetCudaComputeCapability"));
    const auto name = reinterpret_cast<int (*)(Device, char *, unsigned)>(sym("nvmlDeviceGetName"));
    const auto uuid = reinterpret_cast<int (*)(Device, char *, unsigned)>(sym("nvmlDeviceGetUUID"));
    if (init && shutdown && version && count && byIndex && capability && name && uuid && init() == 0) {
        d.present = true;
        version(&d.cudaVersion);
        unsigned n = 0;
        count(&n);
        for (unsigned i = 0; i < n; ++i) {
            Device dev = nullptr;
            NvidiaCard c;
            char buf[96] = {};
            if (byIndex(i, &dev) != 0 || capability(dev, &c.major, &c.minor) != 0) {
                d.complete = false;
                continue;
            }
            if (name(dev, buf, sizeof(buf)) == 0)
                c.name = buf;
            std::memset(buf, 0, sizeof(buf));
            if (uuid(dev, buf, sizeof(buf)) == 0)
                c.uuid = buf;
            d.complete = d.complete && !c.uuid.empty();
            d.cards.push_back(std::move(c));
        }
        shutdown();
    }
    dlclose(lib);
    return d;
}

} // namespace shoehorn::internal
