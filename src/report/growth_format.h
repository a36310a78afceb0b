// report/: the memory growth section of the summary (see analyze/growth.h).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analyze/growth.h"

namespace canopy::report {

// The summary shows at most this many lines of findings, one per command and verdict;
// past that, the last line says how many more and the command that lists them all.
inline constexpr size_t kSummaryGrowthLines = 5;

// One line per finding, "grew steadily 40.0 MiB/min for 12 m 00.0 s (fit R² 0.98), to
// 500.0 MiB, and still held it when the recording ended"; without the process.
std::string growth_text(const analyze::GrowthFinding& finding);

// The summary's growth section: findings grouped by command, at most
// kSummaryGrowthLines of them; `path` is the recording, for the command that lists all.
std::string growth_summary_text(const analyze::GrowthReport& report, const std::string& path);

// After a heap profile's leaks: the resident memory findings beyond the profile
// (HeapLeakReport::growth_beyond) under a line that says so; empty when there are none.
// Grouped as in the summary, or one line per process for `report --growth`.
std::string growth_beyond_heap_text(const std::vector<analyze::GrowthFinding>& beyond, const std::string& path);
std::string growth_beyond_heap_list_text(const std::vector<analyze::GrowthFinding>& beyond);

// Every finding, one line per process (`canopy report --growth`).
std::string growth_list_text(const analyze::GrowthReport& report);

nlohmann::json growth_json(const analyze::GrowthReport& report);

}  // namespace canopy::report
