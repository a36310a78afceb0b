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
// The summary's "heap profile" line: how many of the tree's processes the profiler
// reported from, and how many it did not for each reason ("17 of 19 processes (not
// profiled: 1 static, 1 setuid)"). `imaged_processes`, those with an image of the
// profiler, is the count when the recording does not say why the others sent none.
std::string heap_coverage_line(const analyze::HeapCoverageSummary& coverage, int64_t imaged_processes);
// null for a recording without a heap profile.
nlohmann::json heap_coverage_json(const analyze::HeapCoverageSummary& coverage);

}  // namespace canopy::report
