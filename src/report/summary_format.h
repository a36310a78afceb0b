// report/: the summary of a recording for people (terminal text) and scripts (JSON).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/summary.h"
#include "common/process_words.h"

namespace canopy::report {

// The block `canopy record` prints at the end and `canopy report` prints on demand.
std::string summary_text(const analyze::Summary& summary, const std::string& path);

// The same facts as one JSON object, for `canopy report --json`.
std::string summary_json(const analyze::Summary& summary, const std::string& path);
nlohmann::json summary_json_object(const analyze::Summary& summary, const std::string& path);

}  // namespace canopy::report
