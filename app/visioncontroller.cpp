#include "visioncontroller.h"

#include "loadedmodel.h"
#include "modelsettings.h"
#include "workpool.h"

#include "filesafety.h"

#include <QFile>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

using namespace shoehorn;

VisionController::VisionController(LoadedModel *model, InferenceSession *session, QObject *parent)
    : QObject(parent), m_model(model), m_session(session)
{
    connect(model, &LoadedModel::modelLoaded, this, &VisionController::onModelLoaded);
    connect(this, &VisionController::factsReady, this, &VisionController::applyChoice);
    connect(session, &InferenceSession::visionChanged, this, &VisionController::visionChanged);
}

const VisionSummary &VisionController::vision() const
{
    return m_session->vision();
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

VisionController::Facts VisionController::findFacts(const QString &modelPath, const QString &choice)
{
    Facts f;
    f.candidates = candidates(modelPath);
    if (choice == ModelSettings::kNoProjector)
        return f;
    f.projector = choice;
    if (choice.isEmpty())
        for (const Candidate &c : f.candidates)
            if (!c.mismatch) {
                f.projector = c.path;
                break;
            }
    if (f.projector.isEmpty())
        return f;
    if (auto info = inspectProjector(f.projector.toStdString())) {
        f.precision = QString::fromStdString(info->precision);
        f.tokens1024 = estimateImageTokens(*info, 1024, 1024);
    }
    // llama.cpp's dry run of the projector runs in this process: only once the file passed the
    // helper's check (a broken mmproj can abort llama.cpp). Cached across runs.
    if (!checkUntrustedFile(f.projector)) {
        auto gpu = projectorMemory(f.projector.toStdString(), true);
        auto cpu = projectorMemory(f.projector.toStdString(), false);
        f.gpuBytes = gpu ? *gpu : 0;
        f.cpuBytes = cpu ? *cpu : 0;
    }
    return f;
}

std::optional<VisionController::Facts> VisionController::facts(const QString &modelPath, const QString &choice)
{
    if (modelPath.isEmpty())
        return Facts{};
    const QString key = modelPath + QLatin1Char('\n') + choice;
    if (auto it = m_facts.constFind(key); it != m_facts.constEnd())
        return *it;
    if (!m_finding.contains(key)) {
        m_finding.insert(key);
        QtConcurrent::run(workPool(), &VisionController::findFacts, modelPath, choice).then(this, [this, key](const Facts &f) {
            m_finding.remove(key);
            m_facts.insert(key, f);
            emit factsReady();
        });
    }
    return std::nullopt;
}

void VisionController::choose(const QString &choice, bool offload)
{
    ModelSettings s = m_model->modelSettings();
    s.projector = choice;
    s.projectorOffload = offload;
    m_model->setModelSettings(s);
    if (m_model->hasModel()) {
        m_applyPending = true;
        applyChoice();
    }
}

void VisionController::onModelLoaded(const ModelSummary &)
{
    m_applyPending = true;
    applyChoice();
}

void VisionController::applyChoice()
{
    if (!m_applyPending || !m_model->hasModel())
        return;
    const ModelSettings s = m_model->modelSettings();
    const auto f = facts(m_model->model().path, s.projector);
    if (!f)
        return; // factsReady() comes back here
    m_applyPending = false;
    if (!f->projector.isEmpty() || !vision().path.isEmpty())
        m_session->loadProjector(f->projector, s.projectorOffload);
}

namespace {
// The type from the file's first bytes, as the data URL and the export name it; empty for others.
QString chatImageMime(const QByteArray &bytes)
{
    if (bytes.startsWith("\x89PNG"))
        return QStringLiteral("image/png");
    if (bytes.startsWith("\xff\xd8"))
        return QStringLiteral("image/jpeg");
    if (bytes.startsWith("GIF8"))
        return QStringLiteral("image/gif");
    if (bytes.startsWith("BM"))
        return QStringLiteral("image/bmp");
    return {};
}
} // namespace

bool VisionController::isChatImageFormat(const QByteArray &bytes)
{
    return !chatImageMime(bytes).isEmpty();
}

Result<ChatImage> VisionController::imageFromBytes(const QByteArray &bytes)
{
    if (Error e = checkImageDecodes(std::string(bytes.constData(), size_t(bytes.size()))))
        return e;
    ChatImage img;
    img.data = bytes;
    img.mime = chatImageMime(bytes);
    if (img.mime.isEmpty())
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
