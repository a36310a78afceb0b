#include "web/api_answers.h"

#include <array>
#include <optional>

#include "common/json_dump.h"
#include "common/text.h"

namespace canopy::web {
namespace {

constexpr size_t kMaxPoints = 20000;

// A query parameter as an integer: nullopt when absent, an error when not a number.
Result<std::optional<int64_t>> int_param(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) {
    return std::optional<int64_t>();
  }
  std::string text = req.get_param_value(name);
  auto value = parse_int<int64_t>(text);
  if (!value) {
    return Error{std::string("parameter '") + name + "' is not an integer: '" + text + "'"};
  }
  return std::optional<int64_t>(*value);
}

// `kinds=log,stdout`: the kinds named (empty items ignored); absent: every kind.
KindSet kinds_param(const httplib::Request& req, const EventList& events) {
  if (!req.has_param("kinds")) {
    return events.all_kinds();
  }
  std::vector<std::string> names;
  const std::string param = req.get_param_value("kinds");  // by value: a view must not outlive it
  std::string_view text = param;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view name = text.substr(0, comma);
    if (!name.empty()) {
      names.emplace_back(name);
    }
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return events.kind_set(names);
}

// Each of `names` as an integer or nullopt where absent; the first one that is not a
// number as an error.
template <size_t N>
Result<std::array<std::optional<int64_t>, N>> optional_ints(const httplib::Request& req,
                                                            const char* const (&names)[N]) {
  std::array<std::optional<int64_t>, N> values;
  for (size_t i = 0; i < N; ++i) {
    ASSIGN_OR_RETURN(values[i], int_param(req, names[i]));
  }
  return values;
}

// The processes a profile request asks about: process=, name= or subtree= (at most one),
// or the whole tree.
Result<ProcessSet> process_set_param(const httplib::Request& req, const ViewData& data) {
  std::string kind;
  for (const char* name : {"process", "name", "subtree"}) {
    if (req.has_param(name)) {
      if (!kind.empty()) {
        return Error{"'" + kind + "' and '" + name + "' are asked together: one of process, name or subtree"};
      }
      kind = name;
    }
  }
  return process_set(data.timeline.processes(), kind, kind.empty() ? "" : req.get_param_value(kind.c_str()));
}

// Each of `names` as an integer, all required; the first problem as an error.
Result<std::vector<int64_t>> required_ints(const httplib::Request& req, std::initializer_list<const char*> names) {
  std::vector<int64_t> values;
  for (const char* name : names) {
    ASSIGN_OR_RETURN(std::optional<int64_t> value, int_param(req, name));
    if (!value) {
      return Error{std::string("parameter '") + name + "' is required"};
    }
    values.push_back(*value);
  }
  return values;
}

}  // namespace

void answer_recording_since(const httplib::Request& req, httplib::Response& res, const ViewData& data) {
  auto since = int_param(req, "since");
  if (!since) {
    return send_error(res, 400, since.error().message);
  }
  if (**since < 0) {
    return send_error(res, 400, "parameter 'since' is negative: " + std::to_string(**since));
  }
  res.set_content(json_dump(recording_since_json(data, static_cast<uint64_t>(**since))), kJson);
}

// GET /api/events: a page of the list (offset, limit), or where a time falls in it (at).
void answer_events(const httplib::Request& req, httplib::Response& res, const EventList& events) {
  auto params = optional_ints(req, {"offset", "limit", "at"});
  if (!params) {
    return send_error(res, 400, params.error().message);
  }
  auto [offset, limit, at] = *params;
  KindSet kinds = kinds_param(req, events);
  if (at) {
    if (offset || limit) {
      return send_error(res, 400, "'at' is asked alone, without 'offset' or 'limit'");
    }
    return res.set_content(json_dump(events_at_json(events, kinds, *at)), kJson);
  }
  int64_t first = offset.value_or(0);
  int64_t count = limit.value_or(static_cast<int64_t>(kDefaultEventsPerPage));
  if (first < 0) {
    return send_error(res, 400, "'offset' must be 0 or more");
  }
  if (count < 1) {
    return send_error(res, 400, "'limit' must be 1 or more");
  }
  auto page = events_page_json(events, kinds, static_cast<size_t>(first),
                               std::min(static_cast<size_t>(count), kMaxEventsPerPage));
  if (!page) {
    return send_error(res, 500, page.error().message);
  }
  res.set_content(json_dump(*page), kJson);
}

// GET /api/cpu/heatmap, /api/cpu/flame, /api/heap/flame and /api/heap/diff (web/API.md).
void answer_profile(const httplib::Request& req, httplib::Response& res, const ViewData& data,
                    const std::string& what) {
  const ProfileView& view = *data.profiles;
  if (what.rfind("cpu", 0) == 0) {
    if (!view.cpu.recorded) {
      return send_error(res, 404, "the recording has no CPU profile: record with --cpu-profile");
    }
    auto set = process_set_param(req, data);
    if (!set) {
      return send_error(res, 400, set.error().message);
    }
    if (what == "cpu/heatmap") {
      return res.set_content(json_dump(cpu_heatmap_json(view.cpu, *set)), kJson);
    }
    auto range = required_ints(req, {"from", "to"});
    if (!range) {
      return send_error(res, 400, range.error().message);
    }
    if ((*range)[0] >= (*range)[1]) {
      return send_error(res, 400, "'from' is not before 'to'");
    }
    return res.set_content(json_dump(cpu_flame_json(view.cpu, *set, (*range)[0], (*range)[1])), kJson);
  }
  if (!view.heap) {
    return send_error(res, 404, "the recording has no heap profile: record with --heap");
  }
  auto values = what == "heap/flame" ? required_ints(req, {"process", "t"}) : required_ints(req, {"process", "from", "to"});
  if (!values) {
    return send_error(res, 400, values.error().message);
  }
  const std::vector<int64_t>& v = *values;
  if (what == "heap/diff" && v[1] >= v[2]) {
    return send_error(res, 400, "'from' is not before 'to'");
  }
  auto answer = what == "heap/flame" ? heap_flame_json(*view.heap, v[0], v[1]) : heap_diff_json(*view.heap, v[0], v[1], v[2]);
  if (!answer) {
    return send_error(res, 404, answer.error().message);
  }
  res.set_content(json_dump(*answer), kJson);
}

// GET /api/series (web/API.md).
void answer_series(const httplib::Request& req, httplib::Response& res, const analyze::Timeline& timeline) {
  auto metric = analyze::metric_from_id(req.get_param_value("metric"));
  auto metrics = timeline.metrics();
  if (!metric || std::find(metrics.begin(), metrics.end(), *metric) == metrics.end()) {
    return send_error(res, 400, "unknown metric '" + req.get_param_value("metric") + "'");
  }
  auto params = optional_ints(req, {"from", "to", "points"});
  if (!params) {
    return send_error(res, 400, params.error().message);
  }
  auto [from, to, points] = *params;
  const auto& ticks = timeline.ticks();
  int64_t from_ms = from.value_or(ticks.empty() ? 0 : ticks.front());
  int64_t to_ms = to.value_or(ticks.empty() ? 0 : ticks.back());
  int64_t n = points.value_or(1000);
  if (from_ms > to_ms) {
    return send_error(res, 400, "'from' is after 'to'");
  }
  if (n < 1 || n > static_cast<int64_t>(kMaxPoints)) {
    return send_error(res, 400, "'points' must be 1 to " + std::to_string(kMaxPoints));
  }
  auto series = timeline.series(*metric, from_ms, to_ms, static_cast<size_t>(n));
  res.set_content(json_dump(series_json(series)), kJson);
}

// GET /api/at (web/API.md).
void answer_at(const httplib::Request& req, httplib::Response& res, const analyze::Timeline& timeline) {
  auto t = int_param(req, "t");
  if (!t || !t->has_value()) {
    return send_error(res, 400, t ? "parameter 't' is required" : t.error().message);
  }
  auto side = analyze::Timeline::Side::kNearest;
  if (req.has_param("side")) {
    const std::string name = req.get_param_value("side");
    if (name == "before") {
      side = analyze::Timeline::Side::kAtOrBefore;
    } else if (name == "after") {
      side = analyze::Timeline::Side::kAtOrAfter;
    } else if (name != "nearest") {
      return send_error(res, 400, "'side' must be before, after or nearest, not '" + name.substr(0, 40) + "'");
    }
  }
  auto moment = timeline.at(**t, side);
  if (!moment) {
    return send_error(res, 404, "the recording has no samples");
  }
  res.set_content(json_dump(moment_json(*moment)), kJson);
}

}  // namespace canopy::web
