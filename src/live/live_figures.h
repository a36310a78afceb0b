// The recorder's latest figures of the tree, for whoever watches it live (`record
// --metrics`). The sampling loop builds them at each tick from what it holds already
// (never a second read of /proc) and hands them to a sink: publishing is a pointer
// swap, so a slow reader never holds the loop up, and record/ knows nothing of who
// reads them or how (HTTP is web/'s).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace canopy::live {

// The processes of the tree that ran one command (their name, as /proc/PID/stat gives
// it), live ones and ended ones.
struct LiveCommandFigures {
  std::string command;
  // Of its live processes.
  int64_t rss_bytes = 0;
  int64_t anon_bytes = 0;
  int64_t swap_bytes = 0;
  int64_t processes = 0;
  int64_t threads = 0;
  // Cumulative and never decreasing: its ended processes' CPU stays in, and a process
  // that exec'd another command keeps what it used before in this one.
  int64_t cpu_user_ns = 0;
  int64_t cpu_system_ns = 0;
  int64_t oom_kills = 0;  // of its processes, as the limit watch named them
};

// One live process of the tree, for a view per process (record --live).
struct LiveProcessFigures {
  int64_t pid = 0;
  std::string command;
  int64_t rss_bytes = 0;
  int64_t threads = 0;
  double cpu_percent = 0;  // of one core, since the previous tick (0 at its first)
  // record --heap: its heap in use at its profiler's latest snapshot (an estimate from
  // sampling, heap_in_use.h); none until its program has sent one.
  std::optional<int64_t> heap_in_use_bytes = std::nullopt;
};

struct LiveFigures {
  int64_t t_ms = 0;  // the tick's time, ms since the epoch
  // The tree's live processes.
  int64_t rss_bytes = 0;
  int64_t anon_bytes = 0;
  int64_t swap_bytes = 0;
  int64_t processes = 0;
  int64_t threads = 0;
  int64_t cpu_ns = 0;             // cumulative, ended processes included
  int64_t processes_started = 0;  // every process seen in the tree so far
  // From the command's cgroup (run mode with one); cumulative.
  int64_t oom_kills = 0;
  int64_t memory_limit_hits = 0;
  int64_t pids_limit_hits = 0;
  // Every command the tree has run so far, in no particular order.
  std::vector<LiveCommandFigures> commands;
  // The tree's live processes one by one, in no particular order.
  std::vector<LiveProcessFigures> each_process;
  // record --heap is on: each_process carries the heap figures the profilers sent.
  bool heap_profiling = false;
  // The highest resident total of a tick so far, and when.
  int64_t peak_rss_bytes = 0;
  int64_t peak_t_ms = 0;
  // From the command's cgroup (run mode with one): exact, shared pages counted once,
  // page cache included. Its memory at this tick, and its own high-water mark, which
  // holds what the tree held at once between ticks too.
  std::optional<int64_t> cgroup_memory_bytes = std::nullopt;
  std::optional<int64_t> cgroup_peak_bytes = std::nullopt;
};

class LiveFiguresSink {
 public:
  virtual ~LiveFiguresSink() = default;
  // Called by the sampling loop after each tick; must not block for long.
  virtual void publish(std::shared_ptr<const LiveFigures> figures) = 0;
  // The recording's file, once the recorder has made it (before the first tick): for a
  // sink that reads the recording itself as it is written (record --serve).
  virtual void recording_created(const std::string& /*path*/) {}
  // The recorder has just committed: what it wrote since its previous commit is in the
  // file for every reader now (record --serve reads it at once instead of at its next
  // poll). Called by the sampling loop; must not block for long.
  virtual void recording_committed() {}
  // Whether someone follows the recording as it is written (a page of record --serve):
  // the recorder then commits more often (store::kWatchedUncommittedUnderMs).
  virtual bool watched() const { return false; }
};

}  // namespace canopy::live
