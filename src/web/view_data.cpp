#include "web/view_data.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "analyze/downsample.h"
#include "analyze/process_figures.h"
#include "analyze/process_labels.h"
#include "common/utf8.h"
#include "store/reader.h"

namespace canopy::web {
namespace {

using nlohmann::json;

template <typename T>
json or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

// CPU percent to one decimal: finer is noise, and it keeps the JSON short.
double round_percent(double percent) { return std::round(percent * 10) / 10; }

// What meta_json needs of the samples: the last tick (the end of a recording whose
// recorder was killed), the machine's memory and the metrics recorded.
struct RecordingSpan {
  std::optional<int64_t> last_tick_ms;
  std::optional<int64_t> mem_total_bytes;
  std::vector<analyze::Metric> metrics;
};

json meta_json(const store::Reader& reader, const RecordingSpan& span) {
  const store::RecordingMeta& meta = reader.meta();
  const auto& end_ms = meta.end_ms;
  return {
      {"command", meta.command.value_or(std::vector<std::string>())},
      {"cwd", meta.cwd.value_or("")},
      {"host", meta.host.value_or("")},
      {"kernel", meta.kernel.value_or("")},
      {"cpu_count", or_null(meta.cpu_count)},
      {"interval_ms", or_null(meta.interval_ms)},
      {"mode", meta.mode.value_or("")},
      {"canopy_version", meta.canopy_version.value_or("")},
      {"start_ms", or_null(meta.start_ms)},
      {"end_ms", end_ms ? json(*end_ms) : or_null(span.last_tick_ms)},
      {"interrupted", !end_ms.has_value()},
      {"exit_code", or_null(meta.exit_code)},
      {"exit_signal", or_null(meta.exit_signal)},
      {"timezone", meta.timezone.value_or("")},
      {"utc_offset_s", or_null(meta.utc_offset_s)},
      {"mem_total_bytes", or_null(span.mem_total_bytes)},
      {"pss", std::ranges::count(span.metrics, analyze::Metric::kPss) > 0},
  };
}

json metrics_json(const std::vector<analyze::Metric>& recorded) {
  json metrics = json::array();
  for (analyze::Metric metric : recorded) {
    const analyze::MetricInfo& info = analyze::metric_info(metric);
    metrics.push_back({{"id", info.id}, {"label", info.label}, {"unit", info.unit}});
  }
  return metrics;
}

// The highest of a total, and when: {rss_bytes, t_ms}.
json peak_json(const std::vector<int64_t>& t_ms, const std::vector<double>& rss) {
  if (rss.empty()) {
    return {{"rss_bytes", 0}, {"t_ms", nullptr}};
  }
  size_t i = std::max_element(rss.begin(), rss.end()) - rss.begin();
  return {{"rss_bytes", static_cast<int64_t>(rss[i])}, {"t_ms", t_ms[i]}};
}

json process_json(const store::ProcessRow& row, const analyze::Subtree& subtree, const std::string& short_words) {
  std::optional<int64_t> cpu_ns;
  if (row.cpu_user_ns) {
    cpu_ns = *row.cpu_user_ns + row.cpu_system_ns.value_or(0);
  }
  // The peak `canopy report` gives; unknown (null) when neither a sample nor the kernel
  // saw one.
  const analyze::ProcessPeak peak = analyze::process_peak(row, 0);
  const bool peak_known = row.peak_rss_bytes || peak.peak_from_exit_record;
  return {
      {"id", row.id},
      {"pid", row.pid},
      {"ppid", row.ppid},
      {"parent", or_null(row.parent_id)},
      {"adopted", row.adopted},
      {"name", row.name},
      {"exe", row.exe},
      {"cmdline", row.cmdline},
      {"short", short_words.empty() ? json(nullptr) : json(short_words)},
      {"named_from_exit_record", row.named_from_exit_record},
      {"start_ms", row.start_ms},
      {"first_ms", row.first_seen_ms},
      {"last_ms", or_null(row.last_seen_ms)},
      {"end_ms", or_null(row.end_ms)},
      {"exit_code", or_null(row.exit_code)},
      {"exit_signal", or_null(row.exit_signal)},
      {"peak_rss_bytes", peak_known ? json(peak.peak_rss_bytes) : json(nullptr)},
      // When the highest sample was taken, where the chart can show the process high
      // (the exit record's peak came at some time before end_ms).
      {"peak_rss_ms", or_null(row.peak_rss_t_ms)},
      {"peak_from_exit_record", peak.peak_from_exit_record},
      {"hwm_bytes", or_null(row.hwm_bytes)},
      {"cpu_ns", or_null(cpu_ns)},
      {"subtree_peak_rss_bytes", subtree.peak_rss_bytes},
      {"subtree_peak_ms", subtree.peak_t_ms},
      {"subtree_peak_at_least", subtree.peak_is_floor},
      {"subtree_cpu_ns", subtree.cpu_ns},
  };
}

// Per kind, the lines GET /api/events lists; the imported log files.
json event_kinds_json(const EventList& events) {
  json kinds = json::object();
  for (size_t k = 0; k < events.kinds().size(); ++k) {
    if (events.counts()[k] > 0) {
      kinds[events.kinds()[k]] = events.counts()[k];
    }
  }
  return kinds;
}

Result<json> log_sources_json(const store::Reader& reader) {
  ASSIGN_OR_RETURN(auto sources, reader.log_sources());
  json list = json::array();
  for (const store::LogSourceRow& source : sources) {
    list.push_back({{"id", source.id},
                    {"name", source.name},
                    {"format", source.format},
                    {"events", source.events},
                    {"outside_span", source.outside_span}});
  }
  return list;
}

// GET /api/recording's "processes": `processes` as made before from data's
// processes_made_from, with the elements whose process, subtree or words have changed
// since made again, and stamped with data's update.
json processes_json(json processes, ViewData& data) {
  const auto& rows = data.timeline.processes();
  const auto& subtrees = data.timeline.subtrees();
  auto& made_from = data.processes_made_from;
  if (!processes.is_array() || processes.size() != made_from.size() || made_from.size() > rows.size()) {
    processes = json::array();
    made_from.clear();
  }
  data.process_changed_at.resize(made_from.size());
  const std::vector<std::string> words = analyze::short_commands_told_apart(rows);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i < made_from.size() && made_from[i].row == rows[i] && made_from[i].subtree == subtrees[i] &&
        made_from[i].short_words == words[i]) {
      continue;
    }
    json made = process_json(rows[i], subtrees[i], words[i]);
    ViewData::ProcessMadeFrom from{rows[i], subtrees[i], words[i]};
    if (i < made_from.size()) {
      processes[i] = std::move(made);
      made_from[i] = std::move(from);
      data.process_changed_at[i] = data.update;
    } else {
      processes.push_back(std::move(made));
      made_from.push_back(std::move(from));
      data.process_changed_at.push_back(data.update);
    }
  }
  return processes;
}

json recording_json(const store::Reader& reader, const analyze::Timeline& timeline, const std::string& file,
                    json processes) {
  const auto& ticks = timeline.ticks();
  RecordingSpan span{ticks.empty() ? std::nullopt : std::optional(ticks.back()), timeline.mem_total_bytes(),
                     timeline.metrics()};
  return {
      {"file", file},
      {"meta", meta_json(reader, span)},
      {"metrics", metrics_json(span.metrics)},
      {"peak", peak_json(ticks, timeline.totals(analyze::Metric::kRss))},
      {"processes", std::move(processes)},
  };
}

}  // namespace

Result<json> preview_json(const store::Reader& reader, const std::string& file, size_t points) {
  ASSIGN_OR_RETURN(auto ticks, reader.ticks());
  RecordingSpan span{ticks.empty() ? std::nullopt : std::optional(ticks.back().t_ms), std::nullopt,
                     analyze::recorded_metrics(reader.meta())};
  std::vector<int64_t> t_ms;
  std::vector<double> rss;
  for (const store::TickRow& tick : ticks) {
    t_ms.push_back(tick.t_ms);
    rss.push_back(static_cast<double>(tick.rss_bytes));
    if (tick.mem_total_bytes > 0) {
      span.mem_total_bytes = tick.mem_total_bytes;  // the last known, as the timeline's
    }
  }
  json total = {{"metric", "rss"}, {"t", json::array()}, {"values", json::array()}};
  if (!t_ms.empty()) {
    for (size_t i : analyze::pick_ticks(t_ms, rss, t_ms.front(), t_ms.back(), points).indices) {
      total["t"].push_back(t_ms[i]);
      total["values"].push_back(static_cast<int64_t>(rss[i]));
    }
  }
  ASSIGN_OR_RETURN(auto processes, reader.processes());
  return json{
      {"loading", true},
      {"file", file},
      {"process_count", processes.size()},
      {"meta", meta_json(reader, span)},
      {"metrics", metrics_json(span.metrics)},
      {"peak", peak_json(t_ms, rss)},
      {"total", std::move(total)},
  };
}

Result<ViewData> load_view_data(const std::string& path) {
  // Loading reads every table in full but the events' texts, which finds most damage
  // integrity_check would; a damaged text surfaces as an error of the page that reads it.
  ASSIGN_OR_RETURN(auto reader, store::Reader::open(path, store::Reader::Verify::kWhileReading));
  auto owned = std::make_unique<store::Reader>(std::move(reader));
  auto data = load_view_data(*owned);
  if (data) {
    data->reader = std::move(owned);
  }
  return data;
}

Result<ViewData> load_view_data(const store::Reader& reader, bool live) {
  ASSIGN_OR_RETURN(auto timeline, analyze::Timeline::load(reader, /*complete=*/!live));
  ViewData data;
  data.live = live;
  data.file = std::filesystem::path(reader.path()).filename().string();
  data.timeline = std::move(timeline);
  ASSIGN_OR_RETURN(data.events, load_event_list(reader, data.timeline));
  ASSIGN_OR_RETURN(data.profiles, load_profile_view(reader, data.timeline.processes()));
  RETURN_IF_ERROR(update_recording_json(data, reader));
  return data;
}

Result<std::unique_ptr<EventList>> load_event_list(const store::Reader& reader, const analyze::Timeline& timeline) {
  // The end the page uses (meta's, else the last tick): a process last seen before it ended.
  std::optional<int64_t> end_ms = reader.meta().end_ms;
  if (!end_ms && !timeline.ticks().empty()) {
    end_ms = timeline.ticks().back();
  }
  return EventList::load(reader, timeline.processes(), end_ms);
}

Status update_recording_json(ViewData& data, const store::Reader& reader) {
  ASSIGN_OR_RETURN(auto sources, log_sources_json(reader));
  json processes;  // as made for the previous update, if any
  if (data.recording.is_object() && data.recording.contains("processes")) {
    processes = std::move(data.recording["processes"]);
  }
  ++data.update;
  json recording = recording_json(reader, data.timeline, data.file, processes_json(std::move(processes), data));
  recording["update"] = data.update;
  recording["event_kinds"] = event_kinds_json(*data.events);
  recording["log_sources"] = std::move(sources);
  recording["profiles"] = profiles_summary_json(*data.profiles);
  recording["live"] = data.live;
  // Without an end yet: still being written, not interrupted, while followed live.
  recording["meta"]["interrupted"] = !reader.meta().end_ms && !data.live;
  data.recording = std::move(recording);
  return Ok{};
}

json recording_since_json(const ViewData& data, uint64_t since) {
  if (since > data.update) {
    return data.recording;
  }
  json recording = json::object();
  for (const auto& [key, value] : data.recording.items()) {
    if (key != "processes") {
      recording[key] = value;
    }
  }
  const json& processes = data.recording.at("processes");
  json changed = json::array();
  for (size_t i = 0; i < data.process_changed_at.size(); ++i) {
    if (data.process_changed_at[i] > since) {
      changed.push_back(processes[i]);
    }
  }
  recording["processes"] = std::move(changed);
  recording["processes_since"] = since;
  recording["process_count"] = processes.size();
  return recording;
}

json event_json(const EventList& list, size_t position, std::string text, size_t max_text_bytes) {
  const EventEntry& e = list[position];
  size_t whole = text.size();
  text.resize(utf8_prefix(text, max_text_bytes).size());  // the writers sanitise texts to UTF-8
  json out = {
      {"id", e.id != 0 ? json(e.id) : json(nullptr)},
      {"t", e.t_ms},
      {"kind", list.kind_name(e)},
      {"process", e.process_id != 0 ? json(e.process_id) : json(nullptr)},
      {"source", e.source_id != 0 ? json(e.source_id) : json(nullptr)},
      {"text", std::move(text)},
  };
  if (out["text"].get_ref<const std::string&>().size() < whole) {
    out["text_bytes"] = whole;
  }
  return out;
}

Result<json> events_page_json(const EventList& list, const KindSet& kinds, size_t offset, size_t limit) {
  auto filtered = list.filtered(kinds);
  std::vector<size_t> positions;
  for (size_t i = offset; i < filtered->size() && positions.size() < limit; ++i) {
    positions.push_back(filtered->position(i));
  }
  ASSIGN_OR_RETURN(auto texts, list.texts(positions));
  json events = json::array();
  for (size_t i = 0; i < positions.size(); ++i) {
    events.push_back(event_json(list, positions[i], std::move(texts[i]), kMaxEventTextBytes));
  }
  return json{{"total", filtered->size()}, {"offset", offset}, {"events", std::move(events)}};
}

json events_at_json(const EventList& list, const KindSet& kinds, int64_t t_ms) {
  auto filtered = list.filtered(kinds);
  return {{"index", list.nearest_index(*filtered, t_ms)}, {"total", filtered->size()}};
}

json series_json(const analyze::Series& series) {
  bool percent = series.metric == analyze::Metric::kCpu;
  auto number = [percent](double v) { return percent ? json(round_percent(v)) : json(static_cast<int64_t>(v)); };
  json total = json::array();
  for (double v : series.total) {
    total.push_back(number(v));
  }
  json slices = json::array();
  for (const analyze::SeriesSlice& slice : series.slices) {
    json values = json::array();
    for (double v : slice.values) {
      values.push_back(number(v));
    }
    slices.push_back({{"id", slice.process_id}, {"offset", slice.offset}, {"values", std::move(values)}});
  }
  json out = {
      {"metric", analyze::metric_info(series.metric).id},
      {"from", series.from_ms},
      {"to", series.to_ms},
      {"exact", series.exact},
      {"t", series.t_ms},
      {"total", std::move(total)},
      {"series", std::move(slices)},
  };
  if (!percent) {
    json available = json::array();
    for (const auto& v : series.mem_available_bytes) {
      available.push_back(or_null(v));
    }
    out["mem_available"] = std::move(available);
  }
  return out;
}

json moment_json(const analyze::Moment& m) {
  json processes = json::array();
  for (const analyze::ProcessValues& v : m.processes) {
    processes.push_back({
        {"id", v.process_id},
        {"rss", v.rss_bytes},
        {"anon", v.anon_bytes},
        {"file", v.file_bytes},
        {"shmem", v.shmem_bytes},
        {"swap", v.swap_bytes},
        {"pss", or_null(v.pss_bytes)},
        {"cpu", round_percent(v.cpu_percent)},
        {"cpu_ns", v.cpu_ns},
        {"threads", v.threads},
    });
  }
  return {
      {"t", m.t_ms},
      {"processes", std::move(processes)},
      {"totals",
       {
           {"processes", m.processes.size()},
           {"rss", m.rss_bytes},
           {"anon", m.anon_bytes},
           {"swap", m.swap_bytes},
           {"pss", or_null(m.pss_bytes)},
           {"cpu", round_percent(m.cpu_percent)},
           {"mem_available", or_null(m.mem_available_bytes)},
           {"mem_total", or_null(m.mem_total_bytes)},
       }},
  };
}

}  // namespace canopy::web
