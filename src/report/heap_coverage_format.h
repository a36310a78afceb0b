// report/: the "not profiled" section of `canopy heap`: which processes of the tree
// the heap profiler did not report from, how many for each reason, and the first few
// of each, for people (text) and scripts (JSON).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analyze/heap_coverage.h"

namespace canopy::report {

// Empty for a recording without a heap profile.
std::string heap_coverage_text(const analyze::HeapCoverageSummary& coverage);
// null for a recording without a heap profile.
nlohmann::json heap_coverage_json(const analyze::HeapCoverageSummary& coverage);

}  // namespace canopy::report
