#pragma once

#include "error.h"

#include <QString>

#include <atomic>
#include <optional>

// The helper process's check of a file before llama.cpp reads it in this process (filecheck.h):
// shoehorn-cli beside the app, verdicts cached under the cache location. Nothing when the file
// passed (or the helper is missing: a broken install loads without the check, and says so).
// shoehorn-cli beside the app, which also renders chat templates under limits
// (ChatSession::isolateTemplate); empty when it is missing.
QString fileSafetyHelper();

std::optional<shoehorn::Error> checkUntrustedFile(const QString &path, const std::atomic<bool> *cancel = nullptr);
