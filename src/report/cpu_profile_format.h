// `canopy profile`: the functions where the selected CPU samples were, as terminal
// text and as JSON (raw counts; shares are counts over the group's samples).
#pragma once

#include <cstdint>
#include <string>

#include "analyze/cpu_profile.h"

namespace canopy::report {

// At most `processes` lists, the most samples first, and a line for the rest.
std::string cpu_profile_text(const analyze::CpuProfileSummary& summary, size_t processes = SIZE_MAX);
std::string cpu_profile_json(const analyze::CpuProfileSummary& summary);

}  // namespace canopy::report
