#include "export/tick_frames.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace canopy::exporters {
namespace {

int64_t last_alive_ms(const store::ProcessRow& p) {
  return p.last_seen_ms.value_or(std::numeric_limits<int64_t>::max());
}

struct Followed {
  store::SampleValues values;
  bool has_values = false;
  bool emitted = false;  // at some earlier tick
  int64_t cpu_ns_at_last_tick = 0;
};

class TickWalker {
 public:
  TickWalker(std::span<const store::ProcessRow> processes, std::span<const store::TickRow> ticks,
             const TickVisitor& visit)
      : processes_(processes), ticks_(ticks), visit_(visit), followed_(processes.size()) {
    for (size_t i = 0; i < processes.size(); ++i) {
      int64_t id = processes[i].id;
      if (id >= 0) {
        if (static_cast<size_t>(id) >= index_of_.size()) {
          index_of_.resize(static_cast<size_t>(id) + 1, kNone);
        }
        index_of_[static_cast<size_t>(id)] = i;
      }
      by_start_.push_back(i);
    }
    std::stable_sort(by_start_.begin(), by_start_.end(), [&](size_t a, size_t b) {
      return processes_[a].first_seen_ms < processes_[b].first_seen_ms;
    });
  }

  // A sample row: the ticks before it are complete.
  void on_sample(int64_t t_ms, int64_t process_id, const store::SampleValues& values) {
    while (next_tick_ < ticks_.size() && ticks_[next_tick_].t_ms < t_ms) {
      emit(next_tick_++);
    }
    if (process_id < 0 || static_cast<size_t>(process_id) >= index_of_.size()) {
      return;
    }
    size_t i = index_of_[static_cast<size_t>(process_id)];
    if (i != kNone) {
      followed_[i].values = values;
      followed_[i].has_values = true;
    }
  }

  void finish() {
    while (next_tick_ < ticks_.size()) {
      emit(next_tick_++);
    }
  }

 private:
  static constexpr size_t kNone = std::numeric_limits<size_t>::max();

  void emit(size_t tick) {
    int64_t t_ms = ticks_[tick].t_ms;
    // Processes that started by now join, in the order given; those gone leave.
    while (next_start_ < by_start_.size() && processes_[by_start_[next_start_]].first_seen_ms <= t_ms) {
      size_t i = by_start_[next_start_++];
      active_.insert(std::lower_bound(active_.begin(), active_.end(), i), i);
    }
    std::erase_if(active_, [&](size_t i) { return last_alive_ms(processes_[i]) < t_ms; });

    frame_.clear();
    int64_t previous_tick_ms = tick > 0 ? ticks_[tick - 1].t_ms : 0;
    for (size_t i : active_) {
      Followed& f = followed_[i];
      if (!f.has_values) {
        continue;
      }
      const store::ProcessRow& p = processes_[i];
      int64_t cpu_ns = f.values.cpu_ns().value_or(0);
      int64_t used_ns = 0;
      int64_t interval_ms = 0;
      if (f.emitted) {
        used_ns = cpu_ns - f.cpu_ns_at_last_tick;
        interval_ms = t_ms - previous_tick_ms;
      } else {
        // Its first tick: all it used since it started, if it started within this
        // interval (mirrors analyze/timeline.cpp, so both show the same figure).
        int64_t from_ms = tick > 0 ? previous_tick_ms : p.start_ms;
        used_ns = p.start_ms >= from_ms ? cpu_ns : 0;
        interval_ms = t_ms - from_ms;
      }
      double percent = interval_ms > 0 && used_ns > 0 ? static_cast<double>(used_ns) / (interval_ms * 1e4) : 0.0;
      f.emitted = true;
      f.cpu_ns_at_last_tick = cpu_ns;
      frame_.push_back({&p, &f.values, percent});
    }
    visit_({tick, t_ms, frame_});
  }

  std::span<const store::ProcessRow> processes_;
  std::span<const store::TickRow> ticks_;
  const TickVisitor& visit_;
  std::vector<Followed> followed_;
  std::vector<size_t> index_of_;  // by process id: index into processes_
  std::vector<size_t> by_start_;
  size_t next_start_ = 0;
  size_t next_tick_ = 0;
  std::vector<size_t> active_;  // sorted
  std::vector<ProcessAtTick> frame_;
};

}  // namespace

Status for_each_tick(const store::Reader& reader, std::span<const store::ProcessRow> processes,
                     std::span<const store::TickRow> ticks, const TickVisitor& visit,
                     std::span<const store::SampleColumn> columns) {
  std::vector<store::SampleColumn> read;
  if (columns.empty()) {
    for (int c = 0; c < store::kSampleColumnCount; ++c) {
      read.push_back(static_cast<store::SampleColumn>(c));
    }
  } else {
    read.assign(columns.begin(), columns.end());
    for (store::SampleColumn c : {store::kCpuUserNs, store::kCpuSystemNs}) {
      if (std::find(read.begin(), read.end(), c) == read.end()) {
        read.push_back(c);
      }
    }
  }
  TickWalker walker(processes, ticks, visit);
  auto status = reader.for_each_sample(
      [&](int64_t t_ms, int64_t process_id, const store::SampleValues& values) {
        walker.on_sample(t_ms, process_id, values);
      },
      read);
  if (!status) {
    return status;
  }
  walker.finish();
  return Ok{};
}

size_t ticks_alive(const store::ProcessRow& process, std::span<const store::TickRow> ticks) {
  auto before = [](const store::TickRow& tick, int64_t t_ms) { return tick.t_ms < t_ms; };
  auto first = std::lower_bound(ticks.begin(), ticks.end(), process.first_seen_ms, before);
  auto after_last = std::upper_bound(ticks.begin(), ticks.end(), last_alive_ms(process),
                                     [](int64_t t_ms, const store::TickRow& tick) { return t_ms < tick.t_ms; });
  return after_last > first ? static_cast<size_t>(after_last - first) : 0;
}

}  // namespace canopy::exporters
