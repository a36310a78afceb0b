// The words that tell each process of a recording from the others of its name, as the
// viewer's labels and the exports' process tracks show them: its short command
// (common/short_command.h), with one more part of its path where those of one name
// read alike (each target of a CMake unity build compiles a "Unity/unity_0_cxx.cxx").
#pragma once

#include <string>
#include <vector>

#include "store/reader.h"

namespace canopy::analyze {

// One per process, in their order; "" where the command line has no argument.
std::vector<std::string> short_commands_told_apart(const std::vector<store::ProcessRow>& processes);

}  // namespace canopy::analyze
