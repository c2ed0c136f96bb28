#pragma once

#include <QString>
#include <QTemporaryDir>

#include <string>

// Generates the tiny fixture models once per test executable, into a temporary directory.
class TestFixtures
{
public:
    static TestFixtures &instance();
    QString tinyLlama();
    QString tinyMoe();
    QString tinyThinking();   // template opens <think> unless enable_thinking=false
    QString tinyApi();        // tiny-llama whose replies are valid UTF-8 (bytes 0x80-0xFF are CONTROL)
    QString tinyApiDraft();   // tiny-api's draft model: same vocabulary, 2 layers, other weights
    QString tinyMtp();        // tiny qwen35moe with one MTP (nextn) layer, as Qwen3.5/3.6 GGUFs keep it
    QString qwen3_30b();      // full-shape sparse file (~18.5 GB apparent, a few MB on disk)
    QString llama3_8b();      // full-shape sparse dense model
    QString qwen35_35b();     // full-shape sparse hybrid (attention + gated delta net) MoE
    QString qwen35_35bMtp();  // the same with its MTP (nextn) layer, as Qwen3.5/3.6 GGUFs keep it
    QString gemma3_12b();     // full-shape sparse sliding-window model with tied Q6_K embedding
    QString gemma3_12b_q4kEmbd(); // the same with a tied Q4_K embedding (which AMX repacks)
    QString llama32_3b();     // full-shape sparse dense model with tied Q6_K embedding
    QString splitMoe();       // tiny MoE in 3 parts; returns the first part
    // Vision: vision/tiny-vision.gguf (Qwen3.5-style hybrid MoE, M-RoPE) with its projectors
    // beside it (vision/mmproj-tiny-vision-F16.gguf and -F32), and one for a 32-wide model.
    QString tinyVision();
    QString projector(const QString &precision = QStringLiteral("F16"));
    QString projectorMismatch();
    // Tiny llama with `chatTemplate` instead of its own (hostile-template tests), in the
    // fixtures directory under `file`; written again on every call.
    QString withTemplate(const QString &file, const std::string &chatTemplate);
    // A small Q4_K_M llama at `path`, whose weights an x86 CPU with AVX2 repacks (CPU_REPACK)
    // out of the file mapping, written back to disk (its page cache can be dropped).
    static bool writeRepackedQ4K(const QString &path);
    // Resident bytes of this process's mappings of `path` (/proc/self/smaps), all of them.
    static qint64 mappedResidentBytes(const QString &path);
    // A w x h 24-bit BMP (readable without QtGui); `seed` varies the colours.
    static QByteArray bmpImage(int w, int h, int seed = 0);
    QString dir() const { return m_dir.path(); }

private:
    TestFixtures() = default;
    QString make(const QString &preset, const QString &file, unsigned splits = 1);
    QTemporaryDir m_dir;
};
