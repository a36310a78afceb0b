// A recording as time series the viewer can query at interactive speed: loaded once,
// then every query is answered from memory.
//
// Per process it keeps what the file keeps, the ticks where a value changed (memory in
// KiB, so a change costs 40 bytes), and per metric the tree's total at every tick. A
// value between two changes is the earlier one carried forward, as in the file; CPU is
// a rate, so it is zero at ticks without a change.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "analyze/process_figures.h"
#include "common/result.h"
#include "store/reader.h"

namespace canopy::analyze {

enum class Metric { kRss, kAnon, kSwap, kPss, kCpu };

struct MetricInfo {
  Metric metric;
  const char* id;  // as in the API: "rss", "anon", ...
  const char* label;
  const char* unit;  // "bytes" or "percent" (of one core)
};
const MetricInfo& metric_info(Metric metric);
std::optional<Metric> metric_from_id(std::string_view id);
// The metrics a recording has (PSS only when it was recorded), the default first.
std::vector<Metric> recorded_metrics(const store::RecordingMeta& meta);

// One process at one tick, every metric.
struct ProcessValues {
  int64_t process_id = 0;
  int64_t rss_bytes = 0;
  int64_t anon_bytes = 0;
  int64_t file_bytes = 0;
  int64_t shmem_bytes = 0;
  int64_t swap_bytes = 0;
  std::optional<int64_t> pss_bytes;
  double cpu_percent = 0;  // of one core, over the interval ending at this tick
  int64_t cpu_ns = 0;      // cumulative
  int64_t threads = 0;
};

// Every process alive at one tick, and the tree's totals there.
struct Moment {
  int64_t t_ms = 0;
  std::vector<ProcessValues> processes;
  int64_t rss_bytes = 0;
  int64_t anon_bytes = 0;
  int64_t swap_bytes = 0;
  std::optional<int64_t> pss_bytes;
  double cpu_percent = 0;
  std::optional<int64_t> mem_available_bytes;
  std::optional<int64_t> mem_total_bytes;
};

// One process's values at the points t[offset] .. t[offset + values.size() - 1]; it is
// not alive at the other points.
struct SeriesSlice {
  int64_t process_id = 0;
  size_t offset = 0;
  std::vector<double> values;
};

// A metric over a time range, downsampled (see pick_ticks).
struct Series {
  Metric metric = Metric::kRss;
  int64_t from_ms = 0;
  int64_t to_ms = 0;
  bool exact = false;
  std::vector<int64_t> t_ms;
  std::vector<double> total;
  std::vector<std::optional<int64_t>> mem_available_bytes;
  std::vector<SeriesSlice> slices;  // in process id order
};

// A process and its descendants.
struct Subtree {
  // The highest simultaneous sum at one tick; or, when higher, the highest peak of one
  // of them that no tick saw (process_peak: a sample between two ticks, as at its exit,
  // or the kernel's high-water mark): the subtree held at least that much at that
  // moment, or at some moment before that process ended, peak_t_ms.
  int64_t peak_rss_bytes = 0;
  int64_t peak_t_ms = 0;
  bool peak_is_floor = false;  // the second case: at least this much
  int64_t cpu_ns = 0;

  bool operator==(const Subtree&) const = default;
};

class Timeline {
 public:
  // `complete` as for extend: false for a recording that will be followed.
  static Result<Timeline> load(const store::Reader& reader, bool complete = true);
  // Which process rows extend reads again: every one, or only those that can have
  // changed since the last extend (Reader::processes_changing: new ones, open ones and
  // those that ended within store::kProcessRowSettleMs of the last tick), which for a long
  // build is a few of thousands.
  enum class ProcessRows { kAll, kChanging };
  // Reads what a recording still being written gained since the load or the previous
  // extend (`canopy view` following it, view_follow.h): the ticks since, the process
  // rows (new ones, and ended ones' figures), and the sample rows up to the last tick
  // (a row after it waits for the tick it belongs to), or every row when `complete`
  // (the recorder has finished). Within one Reader snapshot (begin_snapshot). The
  // totals are redone from the first tick that changed only. The subtrees' peaks, a
  // pass over every change, are redone only when complete: a follower calls
  // update_subtrees() as often as it can afford.
  Status extend(const store::Reader& reader, bool complete, ProcessRows rows = ProcessRows::kAll);
  void update_subtrees();
  // Whether the subtrees lag the ticks (extended since the last update_subtrees).
  bool subtrees_stale() const { return subtrees_stale_; }

  const std::vector<int64_t>& ticks() const { return t_ms_; }
  const std::vector<store::ProcessRow>& processes() const { return processes_; }
  // Indexed like processes().
  const std::vector<Subtree>& subtrees() const { return subtrees_; }
  // recorded_metrics() of this recording.
  std::vector<Metric> metrics() const;
  // The machine's MemTotal as last recorded; nullopt when never read.
  std::optional<int64_t> mem_total_bytes() const { return mem_total_; }
  // The tree's total of `metric` at every tick.
  const std::vector<double>& totals(Metric metric) const { return totals_[static_cast<size_t>(metric)]; }

  Series series(Metric metric, int64_t from_ms, int64_t to_ms, size_t points) const;
  // Which tick stands for a time between two: the nearest (the earlier on a tie), the
  // last at or before it (where a level, like memory, holds until the next sample), or
  // the first at or after it (whose CPU rate covers the interval holding the time).
  enum class Side { kNearest, kAtOrBefore, kAtOrAfter };
  // The tick `side` picks for t_ms (the first or last when none is on that side);
  // nullopt for a recording without ticks.
  std::optional<Moment> at(int64_t t_ms, Side side = Side::kNearest) const;

 private:
  // A sample row, reduced to what the viewer shows. Memory in KiB: /proc reports it
  // in pages or kB, so nothing is lost.
  struct Change {
    uint32_t tick;
    uint32_t anon_kib;
    uint32_t file_kib;
    uint32_t shmem_kib;
    uint32_t swap_kib;
    uint32_t pss_kib;  // kNoPss when unknown
    uint32_t threads;
    float cpu_percent;  // over the interval ending at `tick`
    int64_t cpu_ns;
  };
  // A sentinel, not std::optional: the timeline holds one Change per sample row of a
  // whole build, and an optional would pad each by 8 bytes.
  static constexpr uint32_t kNoPss = UINT32_MAX;
  // Where a process is alive (ticks first..last) and its changes there.
  struct Track {
    uint32_t first = 1;
    uint32_t last = 0;  // first > last: never alive at a tick
    uint32_t rated = 0;  // changes[0, rated) have their cpu_percent
    std::vector<Change> changes;
  };

  static double value(const Change& c, Metric metric);
  // The change in effect at `tick` (the last at or before it), or nullptr.
  const Change* change_at(const Track& track, uint32_t tick) const;
  void add_change(size_t process, uint32_t tick, const store::SampleValues& v);
  static size_t first_difference(const Track& track, uint32_t first, uint32_t last);
  // Takes the process rows again (`rows` of them); the earliest tick whose totals
  // they change.
  Status read_processes(const store::Reader& reader, ProcessRows rows, size_t& dirty_from);
  // The rows processes_changing gave, merged into processes_: whether they could be
  // (a new id below a known one could not: then every row is read).
  bool merge_processes(std::vector<store::ProcessRow> changed, size_t& dirty_from);
  // A process's first CPU rate depends on its start: rated anew when a row changes it.
  void take_start(size_t i, const store::ProcessRow& row, size_t& dirty_from);
  void rate_cpu(Track& track, int64_t start_ms);
  // The totals at ticks from `from` on, from the changes in effect there.
  void compute_totals_from(size_t from);
  void compute_subtrees();

  store::Reader::SampleCursor cursor_;  // the sample rows read so far
  std::vector<int32_t> index_of_;       // process id to index into processes_
  // What the samples say of each process's peak and CPU, for a row the recorder could
  // not give them (a killed recorder's, a process still alive): process_figures.h.
  std::vector<SampleFigures> sample_figures_;  // indexed like processes_
  bool subtrees_stale_ = false;

  std::vector<int64_t> t_ms_;
  std::vector<std::optional<int64_t>> mem_available_;
  std::optional<int64_t> mem_total_;
  std::vector<Metric> metrics_;
  bool has_pss_ = false;
  std::vector<store::ProcessRow> processes_;
  std::vector<Track> tracks_;  // indexed like processes_
  std::vector<Subtree> subtrees_;
  std::vector<std::vector<double>> totals_;  // [metric][tick]
};

}  // namespace canopy::analyze
