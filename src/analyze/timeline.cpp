#include "analyze/timeline.h"

#include <algorithm>
#include <array>
#include <span>

#include "analyze/downsample.h"
#include "analyze/process_figures.h"

namespace canopy::analyze {
namespace {

constexpr std::array<MetricInfo, 5> kMetrics = {{
    {Metric::kRss, "rss", "Resident", "bytes"},
    {Metric::kAnon, "anon", "Anon (private)", "bytes"},
    {Metric::kSwap, "swap", "Swap", "bytes"},
    {Metric::kPss, "pss", "PSS", "bytes"},
    {Metric::kCpu, "cpu", "CPU", "percent"},
}};

constexpr size_t kMetricCount = kMetrics.size();

uint32_t to_kib(std::optional<int64_t> bytes) {
  return bytes.value_or(0) <= 0 ? 0 : static_cast<uint32_t>(*bytes / 1024);
}
int64_t to_bytes(uint32_t kib) { return static_cast<int64_t>(kib) * 1024; }

bool is_rate(Metric metric) { return metric == Metric::kCpu; }

}  // namespace

const MetricInfo& metric_info(Metric metric) { return kMetrics[static_cast<size_t>(metric)]; }

std::optional<Metric> metric_from_id(std::string_view id) {
  for (const MetricInfo& info : kMetrics) {
    if (id == info.id) {
      return info.metric;
    }
  }
  return std::nullopt;
}

std::vector<Metric> recorded_metrics(const store::RecordingMeta& meta) {
  bool has_pss = meta.probes && meta.probes->find("smaps-rollup") != std::string::npos;
  std::vector<Metric> metrics;
  for (const MetricInfo& info : kMetrics) {
    if (info.metric != Metric::kPss || has_pss) {
      metrics.push_back(info.metric);
    }
  }
  return metrics;
}

Result<Timeline> Timeline::load(const store::Reader& reader) {
  Timeline timeline;
  ASSIGN_OR_RETURN(auto ticks, reader.ticks());
  for (const store::TickRow& tick : ticks) {
    timeline.t_ms_.push_back(tick.t_ms);
    bool known = tick.mem_total_bytes > 0;
    timeline.mem_available_.push_back(known ? std::optional(tick.mem_available_bytes) : std::nullopt);
    if (known) {
      timeline.mem_total_ = tick.mem_total_bytes;
    }
  }
  timeline.metrics_ = recorded_metrics(reader.meta());
  timeline.has_pss_ = std::ranges::count(timeline.metrics_, Metric::kPss) > 0;

  ASSIGN_OR_RETURN(auto processes, reader.processes());
  timeline.processes_ = std::move(processes);
  // The rows a killed recorder left without peak and CPU take them from the samples
  // read below, as the report's do (process_figures.h).
  std::vector<bool> lacking(timeline.processes_.size());
  for (size_t i = 0; i < lacking.size(); ++i) {
    lacking[i] = lacks_figures(timeline.processes_[i]);
  }
  // Process ids are dense from 1 (rowids in order of discovery).
  std::vector<int32_t> index_of;
  const auto& t = timeline.t_ms_;
  for (size_t i = 0; i < timeline.processes_.size(); ++i) {
    const store::ProcessRow& row = timeline.processes_[i];
    if (row.id >= 0) {
      if (static_cast<size_t>(row.id) >= index_of.size()) {
        index_of.resize(static_cast<size_t>(row.id) + 1, -1);
      }
      index_of[static_cast<size_t>(row.id)] = static_cast<int32_t>(i);
    }
    Track track;
    // Alive from the tick it was first seen to the last tick it was seen alive; with
    // no last_seen (a recorder killed while it ran) to the end of the recording.
    int64_t last_ms = row.last_seen_ms.value_or(t.empty() ? 0 : t.back());
    ptrdiff_t first = std::lower_bound(t.begin(), t.end(), row.first_seen_ms) - t.begin();
    ptrdiff_t last = (std::upper_bound(t.begin(), t.end(), last_ms) - t.begin()) - 1;
    if (first <= last) {
      track.first = static_cast<uint32_t>(first);
      track.last = static_cast<uint32_t>(last);
    }
    timeline.tracks_.push_back(std::move(track));
  }

  if (!t.empty()) {
    constexpr store::SampleColumn kShown[] = {store::kRssAnonBytes, store::kRssFileBytes, store::kRssShmemBytes,
                                              store::kSwapBytes,    store::kCpuUserNs,    store::kCpuSystemNs,
                                              store::kThreads,      store::kPssBytes};
    // PSS is the last column of a row: skip decoding up to it when it was never recorded.
    std::span<const store::SampleColumn> shown(kShown, timeline.has_pss_ ? 8 : 7);
    size_t tick = 0;
    auto status = reader.for_each_sample(
        [&](int64_t t_ms, int64_t process_id, const store::SampleValues& v) {
          if (process_id < 0 || static_cast<size_t>(process_id) >= index_of.size() || index_of[process_id] < 0) {
            return;
          }
          // Rows come in time order, so the tick of each is found by walking forward; a
          // row between ticks (a child's last figures, taken when it exited) counts at
          // the next tick, and rows after the last tick at the last.
          if (tick > 0 && t_ms <= t[tick - 1]) {
            tick = std::lower_bound(t.begin(), t.end(), t_ms) - t.begin();
          }
          while (tick + 1 < t.size() && t[tick] < t_ms) {
            ++tick;
          }
          auto process = static_cast<size_t>(index_of[process_id]);
          timeline.add_change(process, static_cast<uint32_t>(tick), v);
          if (lacking[process]) {
            take_sample_figures(timeline.processes_[process], t_ms, v);
          }
        },
        shown);
    if (!status) {
      return status.error();
    }
  }
  // CPU is stored cumulative; the chart shows the rate over each interval.
  for (size_t i = 0; i < timeline.tracks_.size(); ++i) {
    Track& track = timeline.tracks_[i];
    int64_t start_ms = timeline.processes_[i].start_ms;
    for (size_t k = 0; k < track.changes.size(); ++k) {
      Change& c = track.changes[k];
      int64_t previous_tick_ms = c.tick > 0 ? t[c.tick - 1] : start_ms;
      int64_t interval_ms = t[c.tick] - previous_tick_ms;
      // A process's first figure is all it used since it started: a rate over this
      // interval only if it started within it (in attach mode it may be days old).
      int64_t used_ns = k > 0 ? c.cpu_ns - track.changes[k - 1].cpu_ns : start_ms >= previous_tick_ms ? c.cpu_ns : 0;
      c.cpu_percent = interval_ms > 0 && used_ns > 0 ? static_cast<float>(used_ns / (interval_ms * 1e4)) : 0.0f;
    }
  }
  timeline.compute_totals();
  timeline.compute_subtrees();
  return timeline;
}

void Timeline::add_change(size_t process, uint32_t tick, const store::SampleValues& v) {
  Change c{};
  c.tick = tick;
  c.anon_kib = to_kib(v[store::kRssAnonBytes]);
  c.file_kib = to_kib(v[store::kRssFileBytes]);
  c.shmem_kib = to_kib(v[store::kRssShmemBytes]);
  c.swap_kib = to_kib(v[store::kSwapBytes]);
  c.pss_kib = v[store::kPssBytes] ? to_kib(v[store::kPssBytes]) : kNoPss;
  c.threads = static_cast<uint32_t>(std::max<int64_t>(0, v[store::kThreads].value_or(0)));
  c.cpu_ns = v.cpu_ns().value_or(0);
  std::vector<Change>& changes = tracks_[process].changes;
  if (!changes.empty() && changes.back().tick == c.tick) {
    changes.back() = c;  // the later row of the same tick is the newer figure
  } else {
    changes.push_back(c);
  }
}

double Timeline::value(const Change& c, Metric metric) {
  switch (metric) {
    case Metric::kRss:
      return static_cast<double>(to_bytes(c.anon_kib + c.file_kib + c.shmem_kib));
    case Metric::kAnon:
      return static_cast<double>(to_bytes(c.anon_kib));
    case Metric::kSwap:
      return static_cast<double>(to_bytes(c.swap_kib));
    case Metric::kPss:
      return c.pss_kib == kNoPss ? 0.0 : static_cast<double>(to_bytes(c.pss_kib));
    case Metric::kCpu:
      return c.cpu_percent;
  }
  return 0;
}

const Timeline::Change* Timeline::change_at(const Track& track, uint32_t tick) const {
  auto it = std::upper_bound(track.changes.begin(), track.changes.end(), tick,
                             [](uint32_t t, const Change& c) { return t < c.tick; });
  return it == track.changes.begin() ? nullptr : &*(it - 1);
}

std::vector<Metric> Timeline::metrics() const { return metrics_; }

void Timeline::compute_totals() {
  totals_.assign(kMetricCount, std::vector<double>(t_ms_.size(), 0.0));
  for (const MetricInfo& info : kMetrics) {
    std::vector<double>& total = totals_[static_cast<size_t>(info.metric)];
    if (is_rate(info.metric)) {
      for (const Track& track : tracks_) {
        for (const Change& c : track.changes) {
          if (c.tick >= track.first && c.tick <= track.last) {
            total[c.tick] += value(c, info.metric);
          }
        }
      }
      continue;
    }
    // A level carried forward: add each step where it happens, then sum up.
    std::vector<double> step(t_ms_.size() + 1, 0.0);
    for (const Track& track : tracks_) {
      double level = 0;
      for (const Change& c : track.changes) {
        if (c.tick < track.first || c.tick > track.last) {
          continue;
        }
        double v = value(c, info.metric);
        step[c.tick] += v - level;
        level = v;
      }
      if (track.first <= track.last) {
        step[track.last + 1] -= level;
      }
    }
    double running = 0;
    for (size_t i = 0; i < t_ms_.size(); ++i) {
      running += step[i];
      total[i] = running;
    }
  }
}

Series Timeline::series(Metric metric, int64_t from_ms, int64_t to_ms, size_t points) const {
  Series s;
  s.metric = metric;
  s.from_ms = from_ms;
  s.to_ms = to_ms;
  const std::vector<double>& total = totals(metric);
  PickedTicks picked = pick_ticks(t_ms_, total, from_ms, to_ms, points);
  s.exact = picked.exact;
  for (size_t i : picked.indices) {
    s.t_ms.push_back(t_ms_[i]);
    s.total.push_back(total[i]);
    if (!is_rate(metric)) {
      s.mem_available_bytes.push_back(mem_available_[i]);
    }
  }
  const std::vector<size_t>& at = picked.indices;
  for (size_t p = 0; p < tracks_.size(); ++p) {
    const Track& track = tracks_[p];
    size_t begin = std::lower_bound(at.begin(), at.end(), track.first) - at.begin();
    size_t end = std::upper_bound(at.begin(), at.end(), track.last) - at.begin();
    if (begin >= end) {
      continue;
    }
    SeriesSlice slice;
    slice.process_id = processes_[p].id;
    slice.offset = begin;
    // The points ascend, so one cursor walks the changes once.
    auto cursor = track.changes.begin();
    const Change* current = nullptr;
    for (size_t j = begin; j < end; ++j) {
      uint32_t tick = static_cast<uint32_t>(at[j]);
      while (cursor != track.changes.end() && cursor->tick <= tick) {
        current = &*cursor++;
      }
      double v = 0;
      if (current && (!is_rate(metric) || current->tick == tick)) {
        v = value(*current, metric);
      }
      slice.values.push_back(v);
    }
    s.slices.push_back(std::move(slice));
  }
  return s;
}

std::optional<Moment> Timeline::at(int64_t t_ms, Side side) const {
  if (t_ms_.empty()) {
    return std::nullopt;
  }
  size_t i = std::lower_bound(t_ms_.begin(), t_ms_.end(), t_ms) - t_ms_.begin();  // first at or after
  bool take_earlier = false;
  switch (side) {
    case Side::kNearest:
      take_earlier = i > 0 && (i == t_ms_.size() || t_ms - t_ms_[i - 1] <= t_ms_[i] - t_ms);
      break;
    case Side::kAtOrBefore:
      take_earlier = i > 0 && (i == t_ms_.size() || t_ms_[i] != t_ms);
      break;
    case Side::kAtOrAfter:
      take_earlier = i == t_ms_.size();
      break;
  }
  if (take_earlier) {
    --i;
  }
  Moment m;
  m.t_ms = t_ms_[i];
  uint32_t tick = static_cast<uint32_t>(i);
  for (size_t p = 0; p < tracks_.size(); ++p) {
    const Track& track = tracks_[p];
    if (tick < track.first || tick > track.last) {
      continue;
    }
    ProcessValues v;
    v.process_id = processes_[p].id;
    if (const Change* c = change_at(track, tick)) {
      v.rss_bytes = static_cast<int64_t>(value(*c, Metric::kRss));
      v.anon_bytes = to_bytes(c->anon_kib);
      v.file_bytes = to_bytes(c->file_kib);
      v.shmem_bytes = to_bytes(c->shmem_kib);
      v.swap_bytes = to_bytes(c->swap_kib);
      if (c->pss_kib != kNoPss) {
        v.pss_bytes = to_bytes(c->pss_kib);
      }
      v.cpu_percent = c->tick == tick ? c->cpu_percent : 0.0;
      v.cpu_ns = c->cpu_ns;
      v.threads = c->threads;
    }
    m.processes.push_back(v);
  }
  m.rss_bytes = static_cast<int64_t>(totals(Metric::kRss)[i]);
  m.anon_bytes = static_cast<int64_t>(totals(Metric::kAnon)[i]);
  m.swap_bytes = static_cast<int64_t>(totals(Metric::kSwap)[i]);
  if (has_pss_) {
    m.pss_bytes = static_cast<int64_t>(totals(Metric::kPss)[i]);
  }
  m.cpu_percent = totals(Metric::kCpu)[i];
  m.mem_available_bytes = mem_available_[i];
  m.mem_total_bytes = mem_total_;
  return m;
}

}  // namespace canopy::analyze
