#include "visioncontroller.h"

#include "chatcontroller.h"
#include "modelsettings.h"

#include "filesafety.h"

#include <QFile>
#include <QFileInfo>

using namespace shoehorn;

VisionController::VisionController(ChatController *chat) : QObject(chat), m_chat(chat)
{
    connect(chat, &ChatController::modelLoaded, this, &VisionController::onModelLoaded);
    connect(chat->session(), &InferenceSession::visionChanged, this, &VisionController::visionChanged);
}

const VisionSummary &VisionController::vision() const
{
    return m_chat->session()->vision();
}

bool VisionController::isProjectorFile(const QString &path)
{
    return isProjectorFileName(path.toStdString());
}

QList<VisionController::Candidate> VisionController::candidates(const QString &modelPath)
{
    QList<Candidate> out;
    auto model = inspectModel(modelPath.toStdString());
    for (const std::string &p : findProjectors(modelPath.toStdString())) {
        Candidate c;
        c.path = QString::fromStdString(p);
        auto info = inspectProjector(p);
        if (!info) {
            c.mismatch = info.error();
        } else {
            c.precision = QString::fromStdString(info->precision);
            if (model)
                c.mismatch = checkProjectorMatches(*info, *model);
        }
        out.append(c);
    }
    return out;
}

QString VisionController::resolve(const QString &modelPath, const ModelSettings &settings)
{
    if (settings.projector == ModelSettings::kNoProjector)
        return {};
    if (!settings.projector.isEmpty())
        return settings.projector;
    for (const Candidate &c : candidates(modelPath))
        if (!c.mismatch)
            return c.path;
    return {};
}

quint64 VisionController::memoryOf(const QString &projectorPath, bool offload)
{
    if (projectorPath.isEmpty())
        return 0;
    const QString key = projectorPath + (offload ? QStringLiteral("|gpu") : QStringLiteral("|cpu"));
    if (auto it = m_memory.constFind(key); it != m_memory.constEnd())
        return *it;
    // llama.cpp's dry run of the projector runs here: only once the file passed the helper's
    // check (a broken mmproj can abort llama.cpp). Once per file; cached across runs.
    if (checkUntrustedFile(projectorPath)) {
        m_memory.insert(key, 0);
        return 0;
    }
    auto bytes = projectorMemory(projectorPath.toStdString(), offload);
    const quint64 v = bytes ? *bytes : 0;
    m_memory.insert(key, v);
    return v;
}

void VisionController::choose(const QString &choice, bool offload)
{
    ModelSettings s = m_chat->modelSettings();
    s.projector = choice;
    s.projectorOffload = offload;
    m_chat->setModelSettings(s);
    if (m_chat->hasModel())
        m_chat->session()->loadProjector(resolve(m_chat->model().path, s), offload);
}

void VisionController::onModelLoaded(const ModelSummary &summary)
{
    const ModelSettings s = m_chat->modelSettings();
    const QString path = resolve(summary.path, s);
    if (!path.isEmpty() || !vision().path.isEmpty())
        m_chat->session()->loadProjector(path, s.projectorOffload);
}

Result<ChatImage> VisionController::imageFromBytes(const QByteArray &bytes)
{
    if (Error e = checkImageDecodes(std::string(bytes.constData(), size_t(bytes.size()))))
        return e;
    ChatImage img;
    img.data = bytes;
    // The type from the file's first bytes, as the data URL and the export name it.
    if (bytes.startsWith("\x89PNG"))
        img.mime = QStringLiteral("image/png");
    else if (bytes.startsWith("\xff\xd8"))
        img.mime = QStringLiteral("image/jpeg");
    else if (bytes.startsWith("GIF8"))
        img.mime = QStringLiteral("image/gif");
    else if (bytes.startsWith("BM"))
        img.mime = QStringLiteral("image/bmp");
    else
        img.mime = QStringLiteral("application/octet-stream");
    return img;
}

Result<ChatImage> VisionController::imageFromFile(const QString &path)
{
    QFile f(path);
    // A named pipe or a device would block open() and readAll() on the GUI thread.
    if (QFileInfo(path).exists() && !QFileInfo(path).isFile())
        return Error{ErrorCode::FileUnreadable,
                     QStringLiteral("%1 is not a regular file").arg(QFileInfo(path).fileName()).toStdString()};
    if (QFileInfo(path).size() > kMaxImageBytes)
        return Error{ErrorCode::ImageInvalid, QStringLiteral("%1 is larger than %2 MiB")
                                                  .arg(QFileInfo(path).fileName())
                                                  .arg(kMaxImageBytes >> 20)
                                                  .toStdString()};
    if (!f.open(QIODevice::ReadOnly))
        return Error{ErrorCode::FileUnreadable, (QFileInfo(path).fileName() + QStringLiteral(": ") + f.errorString()).toStdString()};
    auto img = imageFromBytes(f.readAll());
    if (!img)
        return Error{img.error().code, (QFileInfo(path).fileName() + QStringLiteral(": ")).toStdString() + img.error().detail};
    return img;
}
