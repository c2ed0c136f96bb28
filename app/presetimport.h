#pragma once

#include "error.h"
#include "modelsettings.h"

#include <QList>
#include <QString>
#include <QStringList>

// llama-server's --models-preset INI file into per-model settings: read, parsed, remembered.
struct PresetImport {
    struct Issue {
        int line = 0;
        QString section, key, message;
    };
    // Why it failed: FileUnreadable (the file), InvalidArgument (not a preset file); None: read.
    shoehorn::Error error;
    QStringList models; // model files whose settings were written
    int skipped = 0;    // sections without a model file
    QList<Issue> issues;

    // Settings start from `base`; a preset marked load-on-startup becomes the startup model.
    static PresetImport fromFile(const QString &path, const ModelSettings &base);
};
