#pragma once

#include <QString>
#include <QTemporaryDir>

// Generates the tiny fixture models once per test executable, into a temporary directory.
class TestFixtures
{
public:
    static TestFixtures &instance();
    QString tinyLlama();
    QString tinyMoe();
    QString tinyThinking();   // template opens <think> unless enable_thinking=false
    QString tinyApi();        // tiny-llama whose replies are valid UTF-8 (bytes 0x80-0xFF are CONTROL)
    QString qwen3_30b();      // full-shape sparse file (~18.5 GB apparent, a few MB on disk)
    QString llama3_8b();      // full-shape sparse dense model
    QString qwen35_35b();     // full-shape sparse hybrid (attention + gated delta net) MoE
    QString gemma3_12b();     // full-shape sparse sliding-window model with tied Q6_K embedding
    QString gemma3_12b_q4kEmbd(); // the same with a tied Q4_K embedding (which AMX repacks)
    QString llama32_3b();     // full-shape sparse dense model with tied Q6_K embedding
    QString splitMoe();       // tiny MoE in 3 parts; returns the first part
    QString dir() const { return m_dir.path(); }

private:
    TestFixtures() = default;
    QString make(const QString &preset, const QString &file, unsigned splits = 1);
    QTemporaryDir m_dir;
};
