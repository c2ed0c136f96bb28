#pragma once

#include "modelsettings.h"

#include <QString>

// The llama-server command line that runs a model with these settings, for users who want
// the same setup outside Shoehorn.
// `projector`: the mmproj file the model reads images with (VisionController's facts), or empty.
QString llamaServerCommand(const QString &modelPath, const ModelSettings &settings, const QString &projector = {});
