#include "testfixtures.h"

#include "fixtures.h"

#include <QFile>
#include <QtTest>

TestFixtures &TestFixtures::instance()
{
    static TestFixtures t;
    return t;
}

QString TestFixtures::make(const QString &preset, const QString &file, unsigned splits)
{
    const QString path = m_dir.filePath(file);
    const QString probe = splits > 1 ? QString(path).replace(".gguf", "-00001-of-%1.gguf").arg(splits, 5, 10, QChar('0'))
                                     : path;
    if (QFile::exists(probe))
        return probe;
    shoehorn::fixtures::Spec spec;
    if (!shoehorn::fixtures::presetByName(preset.toStdString(), spec))
        qFatal("unknown fixture preset");
    spec.splits = splits;
    const std::string err = shoehorn::fixtures::write(spec, path.toStdString());
    if (!err.empty())
        qFatal("fixture generation failed: %s", err.c_str());
    return probe;
}

QString TestFixtures::tinyLlama() { return make("tiny-llama", "tiny-llama.gguf"); }
QString TestFixtures::tinyMoe() { return make("tiny-qwen3moe", "tiny-moe.gguf"); }
QString TestFixtures::tinyThinking() { return make("tiny-thinking", "tiny-thinking.gguf"); }
QString TestFixtures::tinyApi() { return make("tiny-api", "tiny-api.gguf"); }
QString TestFixtures::qwen3_30b() { return make("qwen3-30b-a3b", "qwen3-30b-a3b.gguf"); }
QString TestFixtures::llama3_8b() { return make("llama3-8b", "llama3-8b.gguf"); }
QString TestFixtures::qwen35_35b() { return make("qwen35-35b-a3b", "qwen35-35b-a3b.gguf"); }
QString TestFixtures::gemma3_12b() { return make("gemma3-12b", "gemma3-12b.gguf"); }
QString TestFixtures::gemma3_12b_q4kEmbd() { return make("gemma3-12b-q4k-embd", "gemma3-12b-q4k-embd.gguf"); }
QString TestFixtures::llama32_3b() { return make("llama32-3b", "llama32-3b.gguf"); }
QString TestFixtures::splitMoe() { return make("tiny-qwen3moe", "split-moe.gguf", 3); }
