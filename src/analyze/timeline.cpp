#include "analyze/timeline.h"

#include <algorithm>
#include <array>
#include <limits>
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

Result<Timeline> Timeline::load(const store::Reader& reader, bool complete) {
  Timeline timeline;
  timeline.metrics_ = recorded_metrics(reader.meta());
  timeline.has_pss_ = std::ranges::count(timeline.metrics_, Metric::kPss) > 0;
  RETURN_IF_ERROR(timeline.extend(reader, complete));
  if (!complete) {
    timeline.update_subtrees();  // a follower redoes them only as often as it can afford
  }
  return timeline;
}

Status Timeline::extend(const store::Reader& reader, bool complete, ProcessRows rows) {
  const size_t old_ticks = t_ms_.size();
  ASSIGN_OR_RETURN(auto ticks, t_ms_.empty() ? reader.ticks() : reader.ticks_after(t_ms_.back()));
  for (const store::TickRow& tick : ticks) {
    t_ms_.push_back(tick.t_ms);
    bool known = tick.mem_total_bytes > 0;
    mem_available_.push_back(known ? std::optional(tick.mem_available_bytes) : std::nullopt);
    if (known) {
      mem_total_ = tick.mem_total_bytes;
    }
  }
  size_t dirty_from = old_ticks;
  RETURN_IF_ERROR(read_processes(reader, complete ? ProcessRows::kAll : rows, dirty_from));

  const auto& t = t_ms_;
  if (!t.empty()) {
    constexpr store::SampleColumn kShown[] = {store::kRssAnonBytes, store::kRssFileBytes, store::kRssShmemBytes,
                                              store::kSwapBytes,    store::kCpuUserNs,    store::kCpuSystemNs,
                                              store::kThreads,      store::kPssBytes};
    // PSS is the last column of a row: skip decoding up to it when it was never recorded.
    std::span<const store::SampleColumn> shown(kShown, has_pss_ ? 8 : 7);
    // Rows come in time order, so the tick of each is found by walking forward; a row
    // between ticks (a child's last figures, taken when it exited) counts at the next
    // tick, and rows after the last tick (a finished recording's) at the last.
    size_t tick = old_ticks > 0 ? old_ticks - 1 : 0;
    const int64_t up_to_ms = complete ? INT64_MAX : t.back();
    auto status = reader.for_each_sample_after(
        cursor_, up_to_ms,
        [&](int64_t t_ms, int64_t process_id, const store::SampleValues& v) {
          if (process_id < 0 || static_cast<size_t>(process_id) >= index_of_.size() || index_of_[process_id] < 0) {
            return;
          }
          if (tick > 0 && t_ms <= t[tick - 1]) {
            tick = std::lower_bound(t.begin(), t.end(), t_ms) - t.begin();
          }
          while (tick + 1 < t.size() && t[tick] < t_ms) {
            ++tick;
          }
          auto process = static_cast<size_t>(index_of_[process_id]);
          add_change(process, static_cast<uint32_t>(tick), v);
          dirty_from = std::min(dirty_from, tick);
          take_sample(sample_figures_[process], t_ms, v);
        },
        shown);
    if (!status) {
      return status.error();
    }
  }
  for (size_t i = 0; i < tracks_.size(); ++i) {
    rate_cpu(tracks_[i], processes_[i].start_ms);
    // The rows a killed recorder left, and those of processes still alive, lack the
    // peak and the CPU: they take them from the samples, as the report's do.
    take_sample_figures(processes_[i], sample_figures_[i]);
  }
  compute_totals_from(dirty_from);
  if (complete) {
    update_subtrees();
  } else {
    subtrees_.resize(processes_.size());  // the new ones' come with the next update
    subtrees_stale_ = true;
  }
  return Ok{};
}

// The first tick where a process alive at ticks [first, last] is no longer alive at
// the same ticks as one alive at the track's.
size_t Timeline::first_difference(const Track& track, uint32_t first, uint32_t last) {
  const bool was_alive = track.first <= track.last;
  const bool is_alive = first <= last;
  if (!was_alive || !is_alive) {
    return was_alive ? track.first : first;
  }
  if (track.first != first) {
    return std::min(track.first, first);
  }
  return static_cast<size_t>(std::min(track.last, last)) + 1;
}

void Timeline::take_start(size_t i, const store::ProcessRow& row, size_t& dirty_from) {
  // Its row can state the start more exactly later (run mode knows the command's at
  // once, /proc's after).
  if (i < processes_.size() && row.start_ms != processes_[i].start_ms) {
    tracks_[i].rated = 0;
    dirty_from = std::min<size_t>(dirty_from, tracks_[i].changes.empty() ? dirty_from : tracks_[i].changes[0].tick);
  }
}

bool Timeline::merge_processes(std::vector<store::ProcessRow> changed, size_t& dirty_from) {
  for (store::ProcessRow& row : changed) {
    const auto id = static_cast<size_t>(row.id);
    if (row.id >= 0 && id < index_of_.size() && index_of_[id] >= 0) {
      const auto i = static_cast<size_t>(index_of_[id]);
      take_start(i, row, dirty_from);
      processes_[i] = std::move(row);
    } else if (processes_.empty() || row.id > processes_.back().id) {
      processes_.push_back(std::move(row));
    } else {
      return false;
    }
  }
  return true;
}

Status Timeline::read_processes(const store::Reader& reader, ProcessRows rows, size_t& dirty_from) {
  bool merged = false;
  if (rows == ProcessRows::kChanging && !processes_.empty()) {
    const int64_t settled_before =
        t_ms_.empty() ? std::numeric_limits<int64_t>::min() : t_ms_.back() - store::kProcessRowSettleMs;
    ASSIGN_OR_RETURN(auto changed, reader.processes_changing(processes_.back().id, settled_before));
    merged = merge_processes(std::move(changed), dirty_from);
  }
  if (!merged) {
    ASSIGN_OR_RETURN(auto processes, reader.processes());
    for (size_t i = 0; i < std::min(processes.size(), processes_.size()); ++i) {
      take_start(i, processes[i], dirty_from);
    }
    processes_ = std::move(processes);
  }
  tracks_.resize(processes_.size());
  sample_figures_.resize(processes_.size());
  // Process ids are dense from 1 (rowids in order of discovery).
  const auto& t = t_ms_;
  for (size_t i = 0; i < processes_.size(); ++i) {
    const store::ProcessRow& row = processes_[i];
    if (row.id >= 0) {
      if (static_cast<size_t>(row.id) >= index_of_.size()) {
        index_of_.resize(static_cast<size_t>(row.id) + 1, -1);
      }
      index_of_[static_cast<size_t>(row.id)] = static_cast<int32_t>(i);
    }
    // Alive from the tick it was first seen to the last tick it was seen alive; with
    // no last_seen (a recorder killed while it ran, or one still running) to the end
    // of the recording.
    int64_t last_ms = row.last_seen_ms.value_or(t.empty() ? 0 : t.back());
    ptrdiff_t first = std::lower_bound(t.begin(), t.end(), row.first_seen_ms) - t.begin();
    ptrdiff_t last = (std::upper_bound(t.begin(), t.end(), last_ms) - t.begin()) - 1;
    Track& track = tracks_[i];
    uint32_t new_first = 1;
    uint32_t new_last = 0;
    if (first <= last) {
      new_first = static_cast<uint32_t>(first);
      new_last = static_cast<uint32_t>(last);
    }
    if (new_first != track.first || new_last != track.last) {
      dirty_from = std::min(dirty_from, first_difference(track, new_first, new_last));
      track.first = new_first;
      track.last = new_last;
    }
  }
  return Ok{};
}

// CPU is stored cumulative; the chart shows the rate over each interval.
void Timeline::rate_cpu(Track& track, int64_t start_ms) {
  const auto& t = t_ms_;
  for (size_t k = track.rated; k < track.changes.size(); ++k) {
    Change& c = track.changes[k];
    int64_t previous_tick_ms = c.tick > 0 ? t[c.tick - 1] : start_ms;
    int64_t interval_ms = t[c.tick] - previous_tick_ms;
    // A process's first figure is all it used since it started: a rate over this
    // interval only if it started within it (in attach mode it may be days old).
    int64_t used_ns = k > 0 ? c.cpu_ns - track.changes[k - 1].cpu_ns : start_ms >= previous_tick_ms ? c.cpu_ns : 0;
    c.cpu_percent = interval_ms > 0 && used_ns > 0 ? static_cast<float>(used_ns / (interval_ms * 1e4)) : 0.0f;
  }
  track.rated = static_cast<uint32_t>(track.changes.size());
}

void Timeline::update_subtrees() {
  compute_subtrees();
  subtrees_stale_ = false;
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
  Track& track = tracks_[process];
  std::vector<Change>& changes = track.changes;
  if (!changes.empty() && changes.back().tick == c.tick) {
    changes.back() = c;  // the later row of the same tick is the newer figure
    track.rated = std::min<uint32_t>(track.rated, static_cast<uint32_t>(changes.size() - 1));
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

void Timeline::compute_totals_from(size_t from) {
  const size_t n = t_ms_.size();
  totals_.resize(kMetricCount);
  for (const MetricInfo& info : kMetrics) {
    std::vector<double>& total = totals_[static_cast<size_t>(info.metric)];
    total.resize(n, 0.0);
    if (from >= n) {
      continue;
    }
    std::fill(total.begin() + static_cast<ptrdiff_t>(from), total.end(), 0.0);
    // Each track's changes from the first that can count at `from` on.
    auto changes_from = [&](const Track& track) {
      auto begin = std::lower_bound(track.changes.begin(), track.changes.end(), static_cast<uint32_t>(from),
                                    [](const Change& c, uint32_t tick) { return c.tick < tick; });
      return std::span<const Change>(begin, track.changes.end());
    };
    if (is_rate(info.metric)) {
      for (const Track& track : tracks_) {
        if (track.first > track.last || track.last < from) {
          continue;
        }
        for (const Change& c : changes_from(track)) {
          if (c.tick >= track.first && c.tick <= track.last) {
            total[c.tick] += value(c, info.metric);
          }
        }
      }
      continue;
    }
    // A level carried forward: add each step where it happens, then sum up; a process
    // alive at `from` starts there at the level in effect.
    std::vector<double> step(n - from + 1, 0.0);
    for (const Track& track : tracks_) {
      if (track.first > track.last || track.last < from) {
        continue;
      }
      const uint32_t start = std::max(track.first, static_cast<uint32_t>(from));
      const Change* at_start = change_at(track, start);
      // (A change before its first tick, which the loop of a whole load skipped, too.)
      double level = at_start && at_start->tick >= track.first ? value(*at_start, info.metric) : 0.0;
      step[start - from] += level;
      for (const Change& c : changes_from(track)) {
        if (c.tick <= start || c.tick > track.last) {
          continue;
        }
        double v = value(c, info.metric);
        step[c.tick - from] += v - level;
        level = v;
      }
      step[track.last + 1 - from] -= level;
    }
    double running = 0;
    for (size_t i = from; i < n; ++i) {
      running += step[i - from];
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
