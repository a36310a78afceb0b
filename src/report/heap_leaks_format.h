// report/: the summary's memory growth section when the recording has a heap profile
// (analyze/heap_leaks.h): the stacks judged leaks, largest first; in the summary, the
// leaks of one command at one place share a line.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "analyze/heap_leaks.h"

namespace canopy::report {

// At most kSummaryGrowthLines lines (growth_format.h), one per command and place
// (the function that names the leak), then how many more and the command that lists
// them; `path` is the recording.
std::string heap_leaks_summary_text(const analyze::HeapLeakReport& report, int64_t recording_start_ms,
                                    const std::string& path);

// Every leak (`canopy report --growth`).
std::string heap_leaks_list_text(const analyze::HeapLeakReport& report, int64_t recording_start_ms);

nlohmann::json heap_leaks_json(const analyze::HeapLeakReport& report);

}  // namespace canopy::report
