#pragma once

// A test of the window or of a controller starts from nothing remembered: QStandardPaths in test
// mode, a settings write still pending from the last test landed first, then the settings and
// the chat history removed.
#include "appsettings.h"
#include "chatstore.h"

#include <QFile>
#include <QSettings>
#include <QStandardPaths>

inline void startFresh()
{
    QStandardPaths::setTestModeEnabled(true);
    AppSettings::waitForWrites();
    QSettings().clear();
    QFile::remove(ChatStore::defaultPath());
}
