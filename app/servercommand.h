#pragma once

#include "modelsettings.h"

#include <QString>

// The llama-server command line that runs a model with these settings, for users who want
// the same setup outside Shoehorn.
QString llamaServerCommand(const QString &modelPath, const ModelSettings &settings);
