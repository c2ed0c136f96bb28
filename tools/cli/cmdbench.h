#pragma once

#include "benchmark.h"
#include "cliargs.h"

#include <string>

namespace shoehorn::cli {

// shoehorn-cli bench: pp/tg/chat-path tokens per second, mean and standard deviation.
int cmdBench(const Args &args);
// shoehorn-cli parity (cmdparity.cpp): our engine and llama.cpp's llama-bench (same build),
// alternating, on the same model and settings; prints both and the ratios.
int cmdParity(const Args &args);
// shoehorn-cli tune: the fastest configuration that fits, measured, and the tuning story.
int cmdTune(const Args &args);
// What bench, tune and parity do before they load the model: read its header, refuse settings it
// cannot take (a quantized KV cache its head size does not divide), and the isolated file check
// unless --no-check. 0, or the exit code after printing why.
int readyToMeasure(const Args &args);
// "mean ± stddev", as llama-bench prints it.
std::string statText(const Stats &s);

} // namespace shoehorn::cli
