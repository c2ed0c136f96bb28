#pragma once

#include <QSettings>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>

// Keeps a test away from the user's settings: QStandardPaths in test mode, and every
// QSettings format and scope in a temporary directory that lives as long as the test
// executable. Call it before the first QSettings is made (initTestCase). Returns the directory.
inline QString isolateSettings()
{
    static QTemporaryDir dir;
    QStandardPaths::setTestModeEnabled(true);
    for (auto format : {QSettings::NativeFormat, QSettings::IniFormat})
        for (auto scope : {QSettings::UserScope, QSettings::SystemScope})
            QSettings::setPath(format, scope, dir.path());
    return dir.path();
}
