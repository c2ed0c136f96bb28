#pragma once

#include "error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct gguf_context;
struct ggml_context;
struct ggml_tensor;

namespace shoehorn {

// "a named pipe", "a device", "a folder"...: what a path that is not a regular file is (st_mode).
std::string fileKind(unsigned mode);
// FileUnreadable when `path` exists and is not a regular file (a FIFO named *.gguf, a device):
// opening one for reading could wait forever. Empty for a regular file or one that is missing.
Error refuseNonRegular(const std::string &path);

// Type-checked read access to one GGUF file's metadata. ggml's gguf getters assert on a
// type mismatch; a hostile file must never reach those asserts, so every getter checks first.
class GgufFile
{
public:
    static Result<std::shared_ptr<GgufFile>> open(const std::string &path);
    ~GgufFile();
    GgufFile(const GgufFile &) = delete;
    GgufFile &operator=(const GgufFile &) = delete;

    gguf_context *context() const { return m_ctx; }
    // Tensor shapes and types (no data is allocated). Index as in gguf_get_tensor_name().
    int64_t tensorCount() const;
    const ggml_tensor *tensor(int64_t i) const;
    const std::string &path() const { return m_path; }
    uint64_t fileSize() const { return m_fileSize; }

    std::optional<std::string> string(const std::string &key) const;
    std::optional<uint64_t> uint(const std::string &key) const; // any integer or bool type
    std::optional<double> real(const std::string &key) const;   // any float or integer type
    // Integer arrays (per-layer head counts, sliding-window patterns). Scalars become one element.
    std::vector<int64_t> intArray(const std::string &key) const;
    size_t arrayLength(const std::string &key) const;
    // String arrays (the vocabulary); nullopt when the key is missing or of another type.
    std::optional<std::vector<std::string>> stringArray(const std::string &key) const;
    bool has(const std::string &key) const;

private:
    GgufFile() = default;
    gguf_context *m_ctx = nullptr;
    ggml_context *m_meta = nullptr;
    std::string m_path;
    uint64_t m_fileSize = 0;
};

} // namespace shoehorn
