// report/: the memory growth section of the summary (see analyze/growth.h).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyze/growth.h"

namespace canopy::report {

// One line per finding, "grew 40.0 MiB/min for 12 m 00.0 s (fit R² 0.98), never came
// back down, not even while idle for 3 m 10.0 s: a leak?"; without the process.
std::string growth_text(const analyze::GrowthFinding& finding);

nlohmann::json growth_json(const analyze::GrowthReport& report);

}  // namespace canopy::report
