#include "testfixtures.h"

#include "fixtures.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QtTest>

#include <unistd.h>

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
QString TestFixtures::tinyApiDraft() { return make("tiny-api-draft", "tiny-api-draft.gguf"); }
QString TestFixtures::tinyMtp() { return make("tiny-qwen35moe-mtp", "tiny-qwen35moe-mtp.gguf"); }
QString TestFixtures::qwen3_30b() { return make("qwen3-30b-a3b", "qwen3-30b-a3b.gguf"); }
QString TestFixtures::llama3_8b() { return make("llama3-8b", "llama3-8b.gguf"); }
QString TestFixtures::qwen35_35b() { return make("qwen35-35b-a3b", "qwen35-35b-a3b.gguf"); }
QString TestFixtures::qwen35_35bMtp() { return make("qwen35-35b-a3b-mtp", "qwen35-35b-a3b-mtp.gguf"); }
QString TestFixtures::gemma3_12b() { return make("gemma3-12b", "gemma3-12b.gguf"); }
QString TestFixtures::gemma3_12b_q4kEmbd() { return make("gemma3-12b-q4k-embd", "gemma3-12b-q4k-embd.gguf"); }
QString TestFixtures::llama32_3b() { return make("llama32-3b", "llama32-3b.gguf"); }
QString TestFixtures::tinyVision()
{
    QDir().mkpath(m_dir.filePath("vision"));
    // The pair: the model comes with its projectors beside it, as a download ships them.
    projector(QStringLiteral("F16"));
    projector(QStringLiteral("F32"));
    return make("tiny-vision", "vision/tiny-vision.gguf");
}

QString TestFixtures::projector(const QString &precision)
{
    QDir().mkpath(m_dir.filePath("vision"));
    const QString path = m_dir.filePath("vision/mmproj-tiny-vision-" + precision + ".gguf");
    if (QFile::exists(path))
        return path;
    auto spec = shoehorn::fixtures::tinyProjector();
    spec.type = precision.toLower().toStdString();
    const std::string err = shoehorn::fixtures::writeProjector(spec, path.toStdString());
    if (!err.empty())
        qFatal("projector fixture failed: %s", err.c_str());
    return path;
}

QString TestFixtures::projectorMismatch()
{
    QDir().mkpath(m_dir.filePath("mismatch"));
    const QString path = m_dir.filePath("mismatch/mmproj-mismatch-F16.gguf");
    if (!QFile::exists(path)) {
        const std::string err =
            shoehorn::fixtures::writeProjector(shoehorn::fixtures::tinyProjectorMismatch(), path.toStdString());
        if (!err.empty())
            qFatal("projector fixture failed: %s", err.c_str());
    }
    return path;
}

QString TestFixtures::withTemplate(const QString &file, const std::string &chatTemplate)
{
    auto spec = shoehorn::fixtures::tinyLlama();
    spec.chatTemplate = chatTemplate;
    const QString path = m_dir.filePath(file);
    const std::string err = shoehorn::fixtures::write(spec, path.toStdString());
    if (!err.empty())
        qFatal("fixture generation failed: %s", err.c_str());
    return path;
}

bool TestFixtures::writeRepackedQ4K(const QString &path)
{
    auto spec = shoehorn::fixtures::tinyLlama();
    spec.embd = 256;
    spec.headDim = 64;
    spec.ff = 512;
    spec.layers = 2;
    spec.quant = "q4_k_m";
    spec.name = "repacked";
    if (!shoehorn::fixtures::write(spec, path.toStdString()).empty())
        return false;
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && ::fsync(f.handle()) == 0;
}

qint64 TestFixtures::mappedResidentBytes(const QString &path)
{
    QFile smaps("/proc/self/smaps");
    if (!smaps.open(QIODevice::ReadOnly | QIODevice::Text))
        return -1;
    const QByteArray canonical = QFileInfo(path).canonicalFilePath().toUtf8();
    static const QRegularExpression header(QStringLiteral("^[0-9a-f]+-[0-9a-f]+ "));
    qint64 rss = 0;
    bool inside = false;
    for (const QByteArray &line : smaps.readAll().split('\n')) {
        if (header.match(QString::fromUtf8(line)).hasMatch())
            inside = line.endsWith(canonical);
        else if (inside && line.startsWith("Rss:"))
            rss += line.mid(4).trimmed().split(' ').first().toLongLong() * 1024;
    }
    return rss;
}

QByteArray TestFixtures::bmpImage(int w, int h, int seed)
{
    const int row = (w * 3 + 3) / 4 * 4;
    const int size = 54 + row * h;
    QByteArray b(size, '\0');
    auto put32 = [&](int at, quint32 v) {
        for (int i = 0; i < 4; ++i)
            b[at + i] = char((v >> (8 * i)) & 0xff);
    };
    b[0] = 'B';
    b[1] = 'M';
    put32(2, quint32(size));
    put32(10, 54);
    put32(14, 40);
    put32(18, quint32(w));
    put32(22, quint32(h));
    b[26] = 1;
    b[28] = 24;
    put32(34, quint32(row * h));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int at = 54 + y * row + x * 3;
            b[at] = char((x * 4 + seed * 40) & 0xff);
            b[at + 1] = char((y * 4 + seed * 90) & 0xff);
            b[at + 2] = char(((x + y) * 2 + seed * 17) & 0xff);
        }
    return b;
}

QString TestFixtures::splitMoe() { return make("tiny-qwen3moe", "split-moe.gguf", 3); }
