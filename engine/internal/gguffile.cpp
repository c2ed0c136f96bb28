#include "gguffile.h"

#include "ggufdiagnose.h"
#include "logcapture.h"

#include <ggml.h>
#include <gguf.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shoehorn {

namespace {

constexpr uint64_t kMaxTensors = 1u << 20; // real models have < 20k; more means a broken header
constexpr uint64_t kMaxKv = 1u << 16;
constexpr uint64_t kTensorAlignment = 32; // TENSOR_ALIGNMENT in ggml-impl.h

struct Header {
    char magic[4];
    uint32_t version;
    uint64_t nTensors;
    uint64_t nKv;
};

bool isIntType(gguf_type t)
{
    switch (t) {
    case GGUF_TYPE_UINT8:
    case GGUF_TYPE_INT8:
    case GGUF_TYPE_UINT16:
    case GGUF_TYPE_INT16:
    case GGUF_TYPE_UINT32:
    case GGUF_TYPE_INT32:
    case GGUF_TYPE_UINT64:
    case GGUF_TYPE_INT64:
    case GGUF_TYPE_BOOL:
        return true;
    default:
        return false;
    }
}

int64_t readIntAt(const void *data, gguf_type t, size_t i)
{
    switch (t) {
    case GGUF_TYPE_UINT8: return static_cast<const uint8_t *>(data)[i];
    case GGUF_TYPE_INT8: return static_cast<const int8_t *>(data)[i];
    case GGUF_TYPE_UINT16: return static_cast<const uint16_t *>(data)[i];
    case GGUF_TYPE_INT16: return static_cast<const int16_t *>(data)[i];
    case GGUF_TYPE_UINT32: return static_cast<const uint32_t *>(data)[i];
    case GGUF_TYPE_INT32: return static_cast<const int32_t *>(data)[i];
    case GGUF_TYPE_UINT64: return static_cast<int64_t>(static_cast<const uint64_t *>(data)[i]);
    case GGUF_TYPE_INT64: return static_cast<const int64_t *>(data)[i];
    case GGUF_TYPE_BOOL: return static_cast<const int8_t *>(data)[i] != 0;
    default: return 0;
    }
}

} // namespace

std::string fileKind(unsigned mode)
{
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISFIFO(mode))
        return "a named pipe";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    return "not a file";
}

Error refuseNonRegular(const std::string &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        return Error{ErrorCode::FileUnreadable, path + " is not a regular file (" + fileKind(st.st_mode) + ")"};
    return {};
}

namespace {

// open(2) first: its errno tells a missing file from a symlink loop or a permission problem.
// O_NONBLOCK: opening a FIFO named *.gguf would otherwise wait for a writer forever; what is not
// a regular file (a FIFO, a device, a socket, a folder) is refused before any read. The size.
Result<uint64_t> regularFileSize(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR)
            return Error{ErrorCode::FileNotFound, path + ": no such file"};
        if (err == ELOOP)
            return Error{ErrorCode::FileUnreadable, path + " is a symbolic link that loops back on itself"};
        if (err == EACCES || err == EPERM)
            return Error{ErrorCode::FileUnreadable, "no permission to read " + path};
        if (err == ENXIO)
            return Error{ErrorCode::FileUnreadable, path + " is not a regular file (a socket or a device)"};
        return Error{ErrorCode::FileUnreadable, path + ": " + std::strerror(err)};
    }
    struct stat st {};
    const int statRc = ::fstat(fd, &st);
    ::close(fd);
    if (statRc != 0)
        return Error{ErrorCode::FileUnreadable, path + ": " + std::strerror(errno)};
    if (!S_ISREG(st.st_mode))
        return Error{ErrorCode::FileUnreadable, path + " is not a regular file (" + fileKind(st.st_mode) + ")"};
    return static_cast<uint64_t>(st.st_size);
}

// The fixed header, read here: it gives precise errors for the common cases (not a GGUF at all,
// a newer version, a header with absurd counts) before gguf parses the rest.
Error checkHeader(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{ErrorCode::FileUnreadable, "cannot open " + path};
    Header h{};
    in.read(h.magic, 4);
    if (in.gcount() < 4 || std::memcmp(h.magic, "GGUF", 4) != 0)
        return Error{ErrorCode::NotGguf, "the file does not start with the GGUF magic"};
    in.read(reinterpret_cast<char *>(&h.version), sizeof h.version);
    in.read(reinterpret_cast<char *>(&h.nTensors), sizeof h.nTensors);
    in.read(reinterpret_cast<char *>(&h.nKv), sizeof h.nKv);
    if (!in)
        return Error{ErrorCode::Truncated, "the file ends inside the GGUF header"};
    if (h.version < 2 || h.version > 3)
        return Error{ErrorCode::UnsupportedVersion, "GGUF version " + std::to_string(h.version) + " (supported: 2 and 3)"};
    if (h.nTensors > kMaxTensors || h.nKv > kMaxKv)
        return Error{ErrorCode::Corrupt, "absurd header counts: " + std::to_string(h.nTensors) + " tensors, " +
                                             std::to_string(h.nKv) + " metadata keys"};
    return {};
}

// Tensor data that llama.cpp would map: aligned and inside the file. With mmap, llama.cpp hands
// ggml buffers that start at a tensor's place in the mapped file, and ggml asserts that they are
// aligned to TENSOR_ALIGNMENT (32 bytes): a smaller general.alignment (gguf takes any power of
// two) would abort the process at load. gguf itself does not look at the tensor data.
Error checkTensorData(gguf_context *ctx, uint64_t size)
{
    const uint64_t alignment = gguf_get_alignment(ctx);
    if (alignment < kTensorAlignment)
        return Error{ErrorCode::Corrupt, "general.alignment is " + std::to_string(alignment) + ", less than the " +
                                             std::to_string(kTensorAlignment) + " bytes llama.cpp needs for tensor data"};
    const uint64_t dataOffset = gguf_get_data_offset(ctx);
    const int64_t n = gguf_get_n_tensors(ctx);
    for (int64_t i = 0; i < n; ++i) {
        const uint64_t start = dataOffset + gguf_get_tensor_offset(ctx, i);
        if (start % alignment != 0 || start % kTensorAlignment != 0)
            return Error{ErrorCode::Corrupt, std::string("tensor '") + gguf_get_tensor_name(ctx, i) + "' starts at byte " +
                                                 std::to_string(start) + ", not a multiple of " +
                                                 std::to_string(std::max<uint64_t>(alignment, kTensorAlignment)) +
                                                 " as llama.cpp needs"};
        const uint64_t tEnd = start + gguf_get_tensor_size(ctx, i);
        if (tEnd > size)
            return Error{ErrorCode::Truncated, std::string("tensor '") + gguf_get_tensor_name(ctx, i) +
                                                   "' ends at byte " + std::to_string(tEnd) + ", the file has " +
                                                   std::to_string(size) + ": it is shorter than its header says"};
    }
    return {};
}

} // namespace

Result<std::shared_ptr<GgufFile>> GgufFile::open(const std::string &path)
{
    const auto size = regularFileSize(path);
    if (!size)
        return size.error();
    if (Error e = checkHeader(path))
        return e;
    LogCapture capture;
    ggml_context *meta = nullptr;
    gguf_init_params params{true, &meta};
    gguf_context *ctx = gguf_init_from_file(path.c_str(), params);
    if (!ctx)
        return internal::diagnoseGguf(path, *size, capture.lastError());
    auto file = std::shared_ptr<GgufFile>(new GgufFile());
    file->m_ctx = ctx;
    file->m_meta = meta;
    file->m_path = path;
    file->m_fileSize = *size;
    if (Error e = checkTensorData(ctx, *size))
        return e;
    return file;
}

GgufFile::~GgufFile()
{
    if (m_ctx)
        gguf_free(m_ctx);
    if (m_meta)
        ggml_free(m_meta);
}

int64_t GgufFile::tensorCount() const
{
    return gguf_get_n_tensors(m_ctx);
}

const ggml_tensor *GgufFile::tensor(int64_t i) const
{
    return ggml_get_tensor(m_meta, gguf_get_tensor_name(m_ctx, i));
}

std::optional<std::string> GgufFile::string(const std::string &key) const
{
    const int64_t id = gguf_find_key(m_ctx, key.c_str());
    if (id < 0 || gguf_get_kv_type(m_ctx, id) != GGUF_TYPE_STRING)
        return std::nullopt;
    return std::string(gguf_get_val_str(m_ctx, id));
}

std::optional<uint64_t> GgufFile::uint(const std::string &key) const
{
    const int64_t id = gguf_find_key(m_ctx, key.c_str());
    if (id < 0)
        return std::nullopt;
    const gguf_type t = gguf_get_kv_type(m_ctx, id);
    if (isIntType(t)) {
        const int64_t v = readIntAt(gguf_get_val_data(m_ctx, id), t, 0);
        return v < 0 ? std::nullopt : std::optional<uint64_t>(static_cast<uint64_t>(v));
    }
    if (t == GGUF_TYPE_ARRAY) {
        // Per-layer arrays: report the maximum, which is what sizing needs.
        const auto values = intArray(key);
        int64_t m = -1;
        for (int64_t v : values)
            m = std::max(m, v);
        return m < 0 ? std::nullopt : std::optional<uint64_t>(static_cast<uint64_t>(m));
    }
    return std::nullopt;
}

std::optional<double> GgufFile::real(const std::string &key) const
{
    const int64_t id = gguf_find_key(m_ctx, key.c_str());
    if (id < 0)
        return std::nullopt;
    const gguf_type t = gguf_get_kv_type(m_ctx, id);
    if (t == GGUF_TYPE_FLOAT32)
        return gguf_get_val_f32(m_ctx, id);
    if (t == GGUF_TYPE_FLOAT64)
        return gguf_get_val_f64(m_ctx, id);
    if (isIntType(t))
        return static_cast<double>(readIntAt(gguf_get_val_data(m_ctx, id), t, 0));
    return std::nullopt;
}

std::vector<int64_t> GgufFile::intArray(const std::string &key) const
{
    std::vector<int64_t> out;
    const int64_t id = gguf_find_key(m_ctx, key.c_str());
    if (id < 0)
        return out;
    const gguf_type t = gguf_get_kv_type(m_ctx, id);
    if (isIntType(t)) {
        out.push_back(readIntAt(gguf_get_val_data(m_ctx, id), t, 0));
        return out;
    }
    if (t != GGUF_TYPE_ARRAY)
        return out;
    const gguf_type at = gguf_get_arr_type(m_ctx, id);
    if (!isIntType(at))
        return out;
    const size_t n = gguf_get_arr_n(m_ctx, id);
    const void *data = gguf_get_arr_data(m_ctx, id);
    out.reserve(n);
    for (size_t i = 0; i < n; ++i)
        out.push_back(readIntAt(data, at, i));
    return out;
}

std::optional<std::vector<std::string>> GgufFile::stringArray(const std::string &key) const
{
    const int64_t id = gguf_find_key(m_ctx, key.c_str());
    if (id < 0 || gguf_get_kv_type(m_ctx, id) != GGUF_TYPE_ARRAY || gguf_get_arr_type(m_ctx, id) != GGUF_TYPE_STRING)
        return std::nullopt;
    const size_t n = gguf_get_arr_n(m_ctx, id);
    std::vector<std::string> out;
    out.reserve(n);
    for (size_t i = 0; i < n; ++i)
        out.emplace_back(gguf_get_arr_str(m_ctx, id, i));
    return out;
}

bool GgufFile::has(const std::string &key) const
{
    return gguf_find_key(m_ctx, key.c_str()) >= 0;
}

size_t GgufFile::arrayLength(const std::string &key) const
{
    const int64_t id = gguf_find_key(m_ctx, key.c_str());
    if (id < 0 || gguf_get_kv_type(m_ctx, id) != GGUF_TYPE_ARRAY)
        return 0;
    return gguf_get_arr_n(m_ctx, id);
}

} // namespace shoehorn
