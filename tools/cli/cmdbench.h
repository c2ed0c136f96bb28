#pragma once

#include "cliargs.h"

namespace shoehorn::cli {

// shoehorn-cli bench: pp/tg/chat-path tokens per second, mean and standard deviation.
int cmdBench(const Args &args);
// shoehorn-cli parity: our engine and llama.cpp's llama-bench (same build), alternating,
// on the same model and settings; prints both and the ratios.
int cmdParity(const Args &args);
// shoehorn-cli tune: the fastest configuration that fits, measured, and the tuning story.
int cmdTune(const Args &args);

} // namespace shoehorn::cli
