#pragma once

// Engine-internal: the checks ServerArgs::parse() makes around llama.cpp's own parser: the files
// it would read, the flags Shoehorn does not take, and values that cannot work, each refused
// with the flag's name.

#include "error.h"

#include <common.h>

#include <string>
#include <vector>

namespace shoehorn::internal {

// --n-cpu-moe N / --cpu-moe as a layer count; any other tensor override is refused.
Error readCpuMoe(const common_params &p, int &layers);
// What llama-server takes and Shoehorn does not.
Error checkSupported(const common_params &p);
// The parser's "error while handling argument" as the flag, the value and what was wrong.
std::string clearerParseError(std::string said, const std::vector<std::string> &given);
// Before the parser: the files it reads itself (--api-key-file, --models-preset, ...).
Error checkFilesGiven(const std::vector<std::string> &given);
// After it: values it takes and that cannot work.
Error checkValues(const common_params &p, const std::vector<std::string> &given);

} // namespace shoehorn::internal
