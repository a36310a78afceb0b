// Where the running canopy binary is, to find the files installed beside it (the
// viewer's module, the heap profiler).
#pragma once

#include <string>

#include "common/result.h"

namespace canopy {

// The directory of the binary's real path, with a trailing '/': /proc/self/exe has
// every symlink resolved, so a link to an installed canopy on PATH leads to the
// install, not the link's folder.
Result<std::string> binary_directory();

}  // namespace canopy
