// What the viewer shows of one recording, loaded once: the JSON documents of the API
// (web/API.md) that do not depend on the request, and the timeline that answers the
// ones that do. Immutable after load, so the server's threads share it freely.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "analyze/timeline.h"
#include "common/result.h"
#include "store/reader.h"

namespace canopy::web {

struct ViewData {
  std::string file;  // the recording's file name, for titles
  nlohmann::json recording;  // GET /api/recording
  nlohmann::json events;     // GET /api/events
  analyze::Timeline timeline;
};

// One line naming the file and the cause on failure (as store::Reader::open).
Result<ViewData> load_view_data(const std::string& path);
// From a recording already open (report --html has opened it for the summary).
Result<ViewData> load_view_data(const store::Reader& reader);

// GET /api/series and /api/at.
nlohmann::json series_json(const analyze::Series& series);
nlohmann::json moment_json(const analyze::Moment& moment);

}  // namespace canopy::web
