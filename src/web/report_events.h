// Which events the HTML report embeds: a recording can hold ten million log lines, a
// page cannot. Every kind but the dense ones (log, stdout, stderr, start, end) is
// embedded whole when it fits; the dense kinds share the rest, each thinned evenly over
// time. Texts together take at most kReportTextBytes: past that, the longest are cut.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "web/event_list.h"

namespace canopy::web {

inline constexpr size_t kReportEvents = 50000;
inline constexpr size_t kReportTextBytes = 32 << 20;

// The positions (into `list`) of the events the report embeds, in time order.
std::vector<size_t> pick_report_events(const EventList& list, size_t budget);

// The longest text length such that all texts cut to it take at most `budget` bytes
// (so only the longest are cut), and never more than `most`.
size_t text_cap(const std::vector<std::string>& texts, size_t budget, size_t most);

}  // namespace canopy::web
