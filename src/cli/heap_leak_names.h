// cli/: names the code of the summary's heap leaks (analyze/heap_leaks.h), for record
// and report, which print that summary.
#pragma once

#include <vector>

#include "analyze/heap_leaks.h"

namespace canopy::cli {

// Each leak's `where`, from its stack (symbolize/leak_site.h).
void name_heap_leaks(const store::HeapProfile& profile, std::vector<analyze::HeapLeak>& leaks);

}  // namespace canopy::cli
