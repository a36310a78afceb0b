// The answers of the viewer's API that depend only on the request and the recording's
// data (web/API.md): each checks its parameters, answering 400 with one line that names
// the bad one, and writes JSON. The server (server.h) routes requests to them, under the
// data's read lock.
#pragma once

#include <httplib.h>

#include <string>

#include "analyze/timeline.h"
#include "web/event_list.h"
#include "web/json_response.h"
#include "web/view_data.h"

namespace canopy::web {

// GET /api/recording?since=UPDATE: what changed after that update (recording_since_json).
void answer_recording_since(const httplib::Request& req, httplib::Response& res, const ViewData& data);
// GET /api/events: a page of the list (offset, limit), or where a time falls in it (at).
void answer_events(const httplib::Request& req, httplib::Response& res, const EventList& events);
// GET /api/cpu/heatmap, /api/cpu/flame, /api/heap/flame and /api/heap/diff: `what`.
void answer_profile(const httplib::Request& req, httplib::Response& res, const ViewData& data,
                    const std::string& what);
// GET /api/series: the chart's series of one metric, downsampled.
void answer_series(const httplib::Request& req, httplib::Response& res, const analyze::Timeline& timeline);
// GET /api/at: every process's figures at one tick.
void answer_at(const httplib::Request& req, httplib::Response& res, const analyze::Timeline& timeline);

}  // namespace canopy::web
