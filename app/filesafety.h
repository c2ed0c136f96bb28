#pragma once

#include "chatsession.h"
#include "error.h"
#include "settings.h"

#include <QString>

#include <atomic>
#include <optional>

// shoehorn-cli beside the app, which checks files and renders chat templates under limits
// (ChatSession::isolateTemplate); empty when it is missing.
QString fileSafetyHelper();

// The helper process's check of a file before llama.cpp reads it in this process (filecheck.h):
// shoehorn-cli beside the app, verdicts cached under the cache location. Nothing when the file
// passed (or the helper is missing: a broken install loads without the check, and says so).
std::optional<shoehorn::Error> checkUntrustedFile(const QString &path, const std::atomic<bool> *cancel = nullptr);

// A draft model (-md) is read by llama.cpp in this process too, so it is checked as the model is.
// One that fails leaves speculation off in `s` (the model loads without it) and the note says
// why; nothing when there is no draft or it passed.
std::optional<shoehorn::SpeculationOff> checkDraftModel(shoehorn::SpeculationSettings &s,
                                                        const std::atomic<bool> *cancel = nullptr);
