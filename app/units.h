#pragma once

#include <QString>

#include <cstdint>

// How sizes read in the panels: "18.55 GiB", "32k".
QString bytesText(quint64 bytes);
QString contextText(uint32_t tokens);
