#include "ggufdiagnose.h"

#include <gguf.h>

#include <fstream>
#include <optional>
#include <regex>

namespace shoehorn::internal {

namespace {

// GGUF_MAX_STRING_LENGTH and GGUF_MAX_ARRAY_ELEMENTS in gguf.cpp. A length below them that
// runs past the end of the file is taken for a file cut off, one above them for damage.
constexpr uint64_t kMaxString = uint64_t(1) << 30;

// Bytes of one scalar of a GGUF type; 0 for strings, arrays and unknown types.
size_t typeSize(uint32_t t)
{
    switch (t) {
    case GGUF_TYPE_UINT8: case GGUF_TYPE_INT8: case GGUF_TYPE_BOOL: return 1;
    case GGUF_TYPE_UINT16: case GGUF_TYPE_INT16: return 2;
    case GGUF_TYPE_UINT32: case GGUF_TYPE_INT32: case GGUF_TYPE_FLOAT32: return 4;
    case GGUF_TYPE_UINT64: case GGUF_TYPE_INT64: case GGUF_TYPE_FLOAT64: return 8;
    default: return 0;
    }
}

// Walks the GGUF header the way gguf.cpp reads it, only far enough to say why it stopped.
class Walker
{
public:
    Walker(const std::string &path, uint64_t size) : m_in(path, std::ios::binary), m_size(size) {}

    // Empty when the walk found nothing to report (gguf's own reason then stands).
    std::optional<Error> run();

private:
    enum class Stop { Ok, End, Huge, Other };

    Stop skip(uint64_t n)
    {
        if (n > m_size - m_pos)
            return Stop::End;
        m_pos += n;
        return Stop::Ok;
    }
    Stop readU64(uint64_t &v)
    {
        if (8 > m_size - m_pos)
            return Stop::End;
        m_in.seekg(std::streamoff(m_pos));
        m_in.read(reinterpret_cast<char *>(&v), 8);
        m_pos += 8;
        return m_in ? Stop::Ok : Stop::End;
    }
    Stop readU32(uint32_t &v)
    {
        uint64_t wide = 0;
        if (4 > m_size - m_pos)
            return Stop::End;
        m_in.seekg(std::streamoff(m_pos));
        m_in.read(reinterpret_cast<char *>(&wide), 4);
        m_pos += 4;
        v = static_cast<uint32_t>(wide);
        return m_in ? Stop::Ok : Stop::End;
    }
    Stop readString(std::string *out);
    Stop readValue(uint32_t type);
    Stop readKv(uint64_t i);
    Stop readTensorInfo(uint64_t i);

    std::ifstream m_in;
    uint64_t m_size = 0;
    uint64_t m_pos = 0;
    std::string m_where;
    std::string m_huge;
};

Walker::Stop Walker::readString(std::string *out)
{
    uint64_t len = 0;
    if (Stop s = readU64(len); s != Stop::Ok)
        return s;
    if (len > kMaxString) {
        m_huge = m_where + " has a string length of " + std::to_string(len) + ", more than GGUF allows (" +
                 std::to_string(kMaxString) + ")";
        return Stop::Huge;
    }
    if (out && len <= 256 && len <= m_size - m_pos) {
        out->resize(len);
        m_in.seekg(std::streamoff(m_pos));
        m_in.read(out->data(), std::streamsize(len));
    }
    return skip(len);
}

Walker::Stop Walker::readValue(uint32_t type)
{
    if (type == GGUF_TYPE_STRING)
        return readString(nullptr);
    if (type != GGUF_TYPE_ARRAY) {
        const size_t es = typeSize(type);
        return es == 0 ? Stop::Other : skip(es);
    }
    uint32_t at = 0;
    uint64_t n = 0;
    if (Stop s = readU32(at); s != Stop::Ok)
        return s;
    if (Stop s = readU64(n); s != Stop::Ok)
        return s;
    const size_t es = at == GGUF_TYPE_STRING ? 8 : typeSize(at);
    if (es == 0)
        return Stop::Other;
    if (n > kMaxString) {
        m_huge = m_where + " is an array of " + std::to_string(n) + " elements, more than GGUF allows (" +
                 std::to_string(kMaxString) + ")";
        return Stop::Huge;
    }
    if (at != GGUF_TYPE_STRING)
        return skip(n * es);
    for (uint64_t i = 0; i < n; ++i)
        if (Stop s = readString(nullptr); s != Stop::Ok)
            return s;
    return Stop::Ok;
}

Walker::Stop Walker::readKv(uint64_t i)
{
    std::string key;
    m_where = "the name of metadata key " + std::to_string(i);
    if (Stop s = readString(&key); s != Stop::Ok)
        return s;
    m_where = "metadata key '" + key + "'";
    uint32_t type = 0;
    if (Stop s = readU32(type); s != Stop::Ok)
        return s;
    return readValue(type);
}

Walker::Stop Walker::readTensorInfo(uint64_t i)
{
    std::string name;
    m_where = "the name of tensor " + std::to_string(i);
    if (Stop s = readString(&name); s != Stop::Ok)
        return s;
    m_where = "tensor '" + name + "'";
    uint32_t dims = 0;
    if (Stop s = readU32(dims); s != Stop::Ok)
        return s;
    if (dims > 4)
        return Stop::Other;
    return skip(8ull * dims + 4 + 8); // shape, type, offset
}

std::optional<Error> Walker::run()
{
    uint64_t nTensors = 0, nKv = 0;
    m_where = "the GGUF header";
    Stop s = skip(8); // magic, version
    if (s == Stop::Ok)
        s = readU64(nTensors);
    if (s == Stop::Ok)
        s = readU64(nKv);
    for (uint64_t i = 0; s == Stop::Ok && i < nKv; ++i)
        s = readKv(i);
    for (uint64_t i = 0; s == Stop::Ok && i < nTensors; ++i)
        s = readTensorInfo(i);
    if (s == Stop::End)
        return Error{ErrorCode::Truncated, "the file ends inside " + m_where + ", after " + std::to_string(m_size) +
                                               " bytes: it is shorter than its header says"};
    if (s == Stop::Huge)
        return Error{ErrorCode::Corrupt, m_huge};
    return std::nullopt;
}

} // namespace

std::string firstLogSentence(const std::string &log)
{
    std::string line = log.substr(0, log.find('\n'));
    static const std::regex prefix(R"(^[A-Za-z_][A-Za-z0-9_:]*: )");
    line = std::regex_replace(line, prefix, "");
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
        line.pop_back();
    return line;
}

Error diagnoseGguf(const std::string &path, uint64_t fileSize, const std::string &ggmlLog)
{
    Walker walker(path, fileSize);
    if (auto e = walker.run())
        return *e;
    std::string why = firstLogSentence(ggmlLog);
    std::smatch m;
    static const std::regex alignment(R"(alignment (\d+) is not a power of 2)");
    if (std::regex_search(why, m, alignment))
        why = "general.alignment is " + m[1].str() + ", not a power of two";
    if (why.empty())
        why = "ggml could not parse the metadata";
    return Error{ErrorCode::Corrupt, why};
}

} // namespace shoehorn::internal
