#pragma once

// For engine tests: a tiny fixture loaded on the CPU and a chat session on it; a failure ends
// the test executable with llama.cpp's reason (nothing after it could run).
#include "chatsession.h"

#include <QString>
#include <QtGlobal>

namespace testsessions {

inline std::shared_ptr<shoehorn::Model> load(const QString &path)
{
    shoehorn::LoadSettings ls;
    ls.gpuLayers = 0;
    auto m = shoehorn::Model::load(path.toStdString(), ls);
    if (!m.ok())
        qFatal("load failed: %s", m.error().detail.c_str());
    return *m;
}

inline std::unique_ptr<shoehorn::ChatSession> session(const std::shared_ptr<shoehorn::Model> &m, uint32_t nCtx = 2048)
{
    shoehorn::ContextSettings cs;
    cs.contextSize = nCtx;
    cs.threads = 2;
    auto s = shoehorn::ChatSession::create(m, cs);
    if (!s.ok())
        qFatal("context failed: %s", s.error().detail.c_str());
    return std::move(*s);
}

} // namespace testsessions
