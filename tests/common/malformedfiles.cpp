// Malformed GGUF files, each made from a valid fixture (see malformedfiles.h).
#include "malformedfiles.h"

#include "error.h"
#include "testfixtures.h"

#include <ggml.h>
#include <gguf.h>

#include <QFile>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

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

// A tensor of a rebuilt file: its data is cut or padded with zeros to the size of its shape.
struct Tensor {
    std::string name;
    std::vector<int64_t> ne;
    ggml_type type;
    QByteArray data;
};

// The fixture written anew by ggml's gguf writer, with its metadata and tensors changed by `edit`
// and the tensor data laid out at `alignment` (gguf writes with the alignment it read: a file
// that holds only general.alignment is read first to set it).
QByteArray rebuilt(const QString &fixture, const std::function<void(gguf_context *, std::vector<Tensor> &)> &edit,
                   uint32_t alignment = 32)
{
    ggml_context *data = nullptr;
    gguf_context *src = gguf_init_from_file(fixture.toUtf8().constData(), gguf_init_params{false, &data});
    if (!src)
        qFatal("cannot parse the fixture");
    std::vector<Tensor> tensors;
    for (int64_t i = 0; i < gguf_get_n_tensors(src); ++i) {
        const ggml_tensor *t = ggml_get_tensor(data, gguf_get_tensor_name(src, i));
        tensors.push_back({t->name, {t->ne[0], t->ne[1], t->ne[2], t->ne[3]}, t->type,
                           QByteArray(static_cast<const char *>(t->data), qsizetype(ggml_nbytes(t)))});
    }
    const QString dir = TestFixtures::instance().dir();
    gguf_context *dst = gguf_init_empty();
    if (alignment != 32) {
        gguf_set_val_u32(dst, "general.alignment", alignment);
        gguf_write_to_file(dst, (dir + "/alignment.gguf").toUtf8().constData(), true);
        gguf_free(dst);
        dst = gguf_init_from_file((dir + "/alignment.gguf").toUtf8().constData(), gguf_init_params{true, nullptr});
    }
    gguf_set_kv(dst, src);
    if (alignment != 32)
        gguf_set_val_u32(dst, "general.alignment", alignment);
    edit(dst, tensors);
    ggml_init_params ip{size_t(tensors.size() + 1) * ggml_tensor_overhead(), nullptr, true};
    ggml_context *meta = ggml_init(ip);
    for (Tensor &t : tensors) {
        ggml_tensor *g = ggml_new_tensor(meta, t.type, 4, t.ne.data());
        ggml_set_name(g, t.name.c_str());
        t.data.resize(qsizetype(ggml_nbytes(g)), '\0');
        gguf_add_tensor(dst, g);
        gguf_set_tensor_data(dst, t.name.c_str(), t.data.constData());
    }
    const QString out = dir + "/rebuilt.gguf";
    if (!gguf_write_to_file(dst, out.toUtf8().constData(), false))
        qFatal("cannot write the rebuilt file");
    gguf_free(dst);
    gguf_free(src);
    ggml_free(meta);
    ggml_free(data);
    return readAll(out);
}

// The fixture with general.alignment 8 and its tensor data starting 8 bytes past a multiple of 32
// (general.name is lengthened until it does): memory-mapped, llama.cpp hands ggml an unaligned
// buffer and ggml aborts.
QByteArray misaligned(const QString &fixture)
{
    const QString out = TestFixtures::instance().dir() + "/rebuilt.gguf";
    for (int extra = 0; extra < 32; ++extra) {
        QByteArray b = rebuilt(
            fixture,
            [&](gguf_context *c, std::vector<Tensor> &) {
                gguf_set_val_str(c, "general.name", std::string(size_t(1 + extra), 'x').c_str());
            },
            8);
        gguf_context *back = gguf_init_from_file(out.toUtf8().constData(), gguf_init_params{true, nullptr});
        const bool shifted = back && gguf_get_alignment(back) == 8 && gguf_get_data_offset(back) % 32 != 0;
        gguf_free(back);
        if (shifted)
            return b;
    }
    qFatal("could not misalign the tensor data");
}

Tensor &tensorNamed(std::vector<Tensor> &tensors, const char *name)
{
    for (Tensor &t : tensors)
        if (t.name == name)
            return t;
    qFatal("no tensor %s", name);
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

bool writeBytes(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

bool writeDryRunFile(const QString &detail, const QString &path)
{
    for (const MalformedFile &f : dryRunFiles())
        if (f.detail == detail)
            return writeBytes(path, f.bytes);
    return false;
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
    row("no attention heads", u32("qwen3moe.attention.head_count", 0), corrupt,
        "qwen3moe.attention.head_count is 0, and the model has attention weights (blk.0.attn_q.weight)");
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
    row("empty token renamed to another's text", rewritten(moe, [](gguf_context *c) {
            setTokens(c, [](auto &t) { t[300] = ""; t[301] = "[EMPTY_300]"; });
        }), corrupt, "tokenizer.ggml.tokens has the token '[EMPTY_300]' twice");
    // What llama.cpp would only find at the first decode, or with a memory-mapped buffer.
    row("alignment 8", misaligned(moe), corrupt, "general.alignment is 8, less than the 32 bytes llama.cpp needs");
    row("norm in F16", rebuilt(moe, [](gguf_context *, std::vector<Tensor> &t) {
            tensorNamed(t, "blk.0.attn_norm.weight").type = GGML_TYPE_F16;
        }), corrupt, "tensor 'blk.0.attn_norm.weight' is f16; a one-dimensional tensor");
    row("weight in I32", rebuilt(moe, [](gguf_context *, std::vector<Tensor> &t) {
            tensorNamed(t, "blk.0.attn_q.weight").type = GGML_TYPE_I32;
        }), corrupt, "tensor 'blk.0.attn_q.weight' is of type i32, which llama.cpp cannot compute with");
    // The last tensor: gguf then sees no offset after it that would no longer add up.
    row("dimension of size 0", rebuilt(moe, [](gguf_context *, std::vector<Tensor> &t) { t.back().ne[1] = 0; }),
        corrupt, "_exps.weight' has a dimension of size 0");
    row("encoder, not causal", rewritten(moe, [](gguf_context *c) { gguf_set_val_bool(c, "qwen3moe.attention.causal", false); }),
        corrupt, "qwen3moe.attention.causal is false");
    row("odd rotary dimensions", u32("qwen3moe.rope.dimension_count", 7), corrupt,
        "qwen3moe.rope.dimension_count is 7, not an even number up to the head size 16");
    // The server loop's slots are capped at it: a chat aborted at its first prompt (#30).
    row("trained context of 0", u32("qwen3moe.context_length", 0), corrupt,
        "qwen3moe.context_length is 0: the model would have no room for a prompt");
    return files;
}

QList<MalformedFile> dryRunFiles()
{
    QList<MalformedFile> files;
    auto row = [&files](const char *name, const QByteArray &bytes, int code, const QString &detail) {
        files.append({QString::fromLatin1(name), bytes, code, detail});
    };
    const QString moe = TestFixtures::instance().tinyMoe();
    const int check = int(ErrorCode::FileCheckFailed);
    auto set = [&](const std::function<void(gguf_context *)> &edit) { return rewritten(moe, edit); };
    const QString stopped = "llama.cpp stopped while placing the tensors and building the compute graph";
    row("unknown rope scaling", set([](gguf_context *c) { gguf_set_val_str(c, "qwen3moe.rope.scaling.type", "bogus"); }),
        check, stopped);
    row("rotary dimensions not the head size", set([](gguf_context *c) { gguf_set_val_u32(c, "qwen3moe.rope.dimension_count", 8); }),
        check, "n_embd_head == n_rot");
    row("expert groups", set([](gguf_context *c) { gguf_set_val_u32(c, "qwen3moe.expert_group_count", 8); }),
        check, "n_expert_groups < hparams.n_expert");
    row("next-token layers past the last", set([](gguf_context *c) { gguf_set_val_u32(c, "qwen3moe.nextn_predict_layers", 5); }),
        check, "n_layer_nextn <= hparams.n_layer_all");
    row("heads not a multiple of the KV heads", rebuilt(moe, [](gguf_context *c, std::vector<Tensor> &t) {
            gguf_set_val_u32(c, "qwen3moe.attention.head_count_kv", 3);
            for (Tensor &w : t)
                if (w.name.find("attn_k.weight") != std::string::npos || w.name.find("attn_v.weight") != std::string::npos)
                    w.ne[1] = 48; // 3 heads of 16: the shapes llama.cpp checks agree, the graph does not
        }), check, "GGML_ASSERT(ggml_can_mul_mat");
    row("K weight of another shape", rebuilt(moe, [](gguf_context *, std::vector<Tensor> &t) {
            tensorNamed(t, "blk.0.attn_k.weight").ne[1] = 48;
        }), int(ErrorCode::LoadFailed), "tensor 'blk.0.attn_k.weight' has wrong shape");
    return files;
}
