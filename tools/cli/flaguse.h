#pragma once

#include "cliargs.h"

#include <string>

namespace shoehorn::cli {

// The flags given that `command` does not read, with the commands that do ("note: bench does
// not use --image (chat's): ..."), or empty: a flag that changes nothing is said, not dropped.
std::string unusedFlagsNote(const std::string &command, const Args &a);

// commonFlagsHelp()'s entries that `command` reads ("shoehorn-cli fit --help"): the same table.
std::string flagsHelpFor(const std::string &command);

} // namespace shoehorn::cli
