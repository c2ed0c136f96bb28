// Malformed GGUF files, each made from a valid fixture (see malformedfiles.h).
#include "malformedfiles.h"

#include "error.h"
#include "testfixtures.h"

#include <gguf.h>

#include <QFile>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace shoehorn;

QByteArray readAll(const QString &path);

namespace {


// The fixture with its metadata changed by `edit` (ggml's gguf API) and its tensor data as it was.
QByteArray rewritten(const QString &fixture, const std::function<void(gguf_context *)> &edit)
{
    gguf_context *ctx = gguf_init_from_file(fixture.toUtf8().constData(), gguf_init_params{true, nullptr});
    if (!ctx)
        qFatal("cannot parse the fixture");
    const size_t oldDataOffset = gguf_get_data_offset(ctx);
    edit(ctx);
    const QString meta = TestFixtures::instance().dir() + "/meta.gguf";
    if (!gguf_write_to_file(ctx, meta.toUtf8().constData(), true))
        qFatal("cannot write the metadata");
    gguf_free(ctx);
    return readAll(meta) + readAll(fixture).mid(qsizetype(oldDataOffset));
}

// `from` replaced by `to` (same length) at its first occurrence.
QByteArray patched(QByteArray b, const QByteArray &from, const QByteArray &to)
{
    const qsizetype at = b.indexOf(from);
    if (at < 0 || from.size() != to.size())
        qFatal("cannot patch %s", from.constData());
    std::memcpy(b.data() + at, to.constData(), size_t(to.size()));
    return b;
}

// `v` written `skip` bytes after the end of the first occurrence of `key`.
template <typename T>
QByteArray afterKey(QByteArray b, const char *key, int skip, T v)
{
    const qsizetype at = b.indexOf(key);
    if (at < 0)
        qFatal("no key %s", key);
    std::memcpy(b.data() + at + qsizetype(std::strlen(key)) + skip, &v, sizeof v);
    return b;
}

void setTokens(gguf_context *ctx, const std::function<void(std::vector<std::string> &)> &edit)
{
    const int64_t id = gguf_find_key(ctx, "tokenizer.ggml.tokens");
    std::vector<std::string> tokens;
    for (size_t i = 0; i < gguf_get_arr_n(ctx, id); ++i)
        tokens.emplace_back(gguf_get_arr_str(ctx, id, i));
    edit(tokens);
    std::vector<const char *> ptrs;
    for (const auto &t : tokens)
        ptrs.push_back(t.c_str());
    gguf_set_arr_str(ctx, "tokenizer.ggml.tokens", ptrs.data(), ptrs.size());
}

} // namespace

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return f.readAll();
}

QList<MalformedFile> malformedFiles()
{
    QList<MalformedFile> files;
    auto row = [&files](const char *name, const QByteArray &bytes, int code, const QString &detail) {
        files.append({QString::fromLatin1(name), bytes, code, detail});
    };
    const QString moe = TestFixtures::instance().tinyMoe();
    const QByteArray good = readAll(moe);
    const int corrupt = int(ErrorCode::Corrupt);
    auto u32 = [&](const char *key, uint32_t v) {
        return rewritten(moe, [=](gguf_context *c) { gguf_set_val_u32(c, key, v); });
    };
    auto f32 = [&](const char *key, float v) {
        return rewritten(moe, [=](gguf_context *c) { gguf_set_val_f32(c, key, v); });
    };
    auto str = [&](const char *key, const char *v) {
        return rewritten(moe, [=](gguf_context *c) { gguf_set_val_str(c, key, v); });
    };
    row("layers over 512", u32("qwen3moe.block_count", 600), corrupt,
        "qwen3moe.block_count is 600, more than llama.cpp's limit of 512");
    row("no expert used", u32("qwen3moe.expert_used_count", 0), corrupt,
        "qwen3moe.expert_used_count is 0 but the model has 8 experts");
    row("more used than experts", u32("qwen3moe.expert_used_count", 9), corrupt,
        "qwen3moe.expert_used_count is 9 but the model has 8 experts");
    row("experts over 1024", u32("qwen3moe.expert_count", 2000), corrupt,
        "qwen3moe.expert_count is 2000, more than llama.cpp's limit of 1024");
    const char *eps = "qwen3moe.attention.layer_norm_rms_epsilon";
    row("eps negative", f32(eps, -1e-6f), corrupt, "layer_norm_rms_epsilon is -1e-06");
    row("eps nan", f32(eps, std::nanf("")), corrupt, "layer_norm_rms_epsilon is nan");
    row("eps inf", f32(eps, std::numeric_limits<float>::infinity()), corrupt,
        "layer_norm_rms_epsilon is inf");
    const QByteArray aligned = u32("general.alignment", 32);
    row("alignment 3", afterKey(aligned, "general.alignment", 4, quint32(3)), corrupt,
        "general.alignment is 3, not a power of two");
    row("tensor past the end", good.left(good.size() - 100), int(ErrorCode::Truncated),
        "' ends at byte");
    row("cut in the metadata", good.left(1000), int(ErrorCode::Truncated), "the file ends inside");
    row("duplicate tensor name", patched(good, "blk.0.attn_k.weight", "blk.0.attn_q.weight"), corrupt,
        "duplicate tensor name 'blk.0.attn_q.weight'");
    row("string length 2^63", afterKey(good, "general.architecture", 4, quint64(1) << 63), corrupt,
        "metadata key 'general.architecture' has a string length of "
                                           "9223372036854775808");
    row("array length 2^50", afterKey(good, "tokenizer.ggml.tokens", 8, quint64(1) << 50), corrupt,
        "metadata key 'tokenizer.ggml.tokens' is an array of 1125899906842624");
    row("unknown tokenizer", str("tokenizer.ggml.model", "bogus"), corrupt,
        "tokenizer.ggml.model is 'bogus', a tokenizer llama.cpp does not know");
    row("no vocabulary", str("tokenizer.ggml.model", "none"), corrupt,
        "tokenizer.ggml.model is 'none'");
    row("repeated token", rewritten(moe, [](gguf_context *c) { setTokens(c, [](auto &t) { t[300] = t[301]; }); }), corrupt,
        "tokenizer.ggml.tokens has the token");
    row("SPM without byte tokens", patched(good, "<0x0A>", "<0y0A>"), corrupt,
        "tokenizer.ggml.tokens has no byte token <0x0A>");
    return files;
}
