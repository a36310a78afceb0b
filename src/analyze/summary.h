// analyze/: what a recording says, computed from the store's rows; never reads /proc.
//
// The summary of a recording, like `/usr/bin/time -v` for a whole tree.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/growth.h"
#include "analyze/heap_coverage.h"
#include "analyze/heap_leaks.h"
#include "analyze/process_figures.h"
#include "common/result.h"
#include "store/reader.h"

namespace canopy::analyze {

struct Summary {
  std::vector<std::string> command;
  std::string mode;  // "run", "attach" or "import"
  std::string imported_from;  // mode "import": the file it came from
  int64_t root_pid = 0;
  int64_t start_ms = 0;  // epoch
  int64_t wall_ms = 0;
  // False when the recorder was killed: the recording ends at its last commit.
  bool complete = false;
  // Not complete because another canopy is still writing it (recorder_alive.h), not
  // because its recorder was killed: it ends at its last commit so far.
  bool still_recording = false;
  std::optional<int64_t> exit_code;
  std::optional<int64_t> exit_signal;
  int64_t cpu_user_ns = 0;
  int64_t cpu_system_ns = 0;
  bool cpu_exact = false;  // from the kernel's accounting of waited-for children
  // The tree's peak: the highest sum over the tree at a tick, or one process's own peak
  // where that is higher. A process that peaked between ticks (or a tree that ended
  // before its first) held that much alone: the tree held at least as much.
  int64_t peak_tree_rss_bytes = 0;
  int64_t peak_tree_t_ms = 0;  // since start
  // When the peak is a process's own, above every tick's sum: that process.
  std::optional<ProcessPeak> peak_tree_process;
  int64_t sampled_peak_tree_rss_bytes = 0;  // the highest sum at a tick
  int64_t interval_ms = 0;
  // The tree's cgroup, when the command ran in one ("cgroup v1 (memory, ...) PATH"), or
  // "off: REASON"; empty in recordings made before canopy used cgroups.
  std::string cgroup;
  // Exact, from the cgroup: its own peak counter (which sees between ticks), else the
  // highest tick; shared pages counted once, page cache included.
  std::optional<int64_t> cgroup_peak_bytes;
  int64_t cgroup_oom_kills = 0;
  int64_t ticks = 0;
  int64_t process_samples = 0;  // sum over ticks of the processes alive
  int64_t processes = 0;
  int64_t still_running = 0;  // alive when the recording ended
  // How the tree's processes were found: "netlink" (every one, from the kernel's
  // process events) or "off: REASON" (polling, which misses the briefest); empty in
  // recordings made before canopy listened.
  std::string process_events;
  int64_t process_events_lost = 0;  // overflows of the event queue: some may be missing
  // Processes and threads the whole machine started during the recording: with
  // polling, an upper bound on what the tree can have started.
  std::optional<int64_t> machine_forks;
  // What the run's limits did (timeout, CPU time used up...), as the timeline says.
  std::vector<std::string> limit_events;
  std::vector<ProcessPeak> top;  // highest peaks first
  std::optional<int64_t> recorder_cpu_ns;
  // Memory trends of the processes that lived long enough, when asked for (it reads
  // every sample of those processes).
  std::optional<GrowthReport> growth;
  // With growth, when the recording has a heap profile: the stacks judged leaks, which
  // the summary shows instead of the resident-memory guess.
  std::optional<HeapLeakReport> heap_leaks;
  // With growth, for a heap recording (record --heap): which processes the profiler did
  // not report from, and why; the summary says so next to the CPU profile's line.
  std::optional<HeapCoverageSummary> heap_coverage;
  // Processes with at least one image of the heap profiler: all the summary can count
  // when the recording does not say why the others sent none.
  int64_t heap_imaged_processes = 0;
  std::vector<store::LogSourceRow> logs;  // imported with `canopy log add`, in order
  // record --cpu-profile: how it sampled ("99 Hz, ..."), or "off: " and why; empty
  // when it was not asked for.
  std::optional<std::string> cpu_profile;
};

// `stacks` merges the heap's stacks that read alike and names the leaks' code (see
// heap_leaks.h); without it every recorded stack stands alone and leaks go unnamed.
Result<Summary> summarize(const store::Reader& reader, size_t top_count = 5, bool with_growth = false,
                          HeapStackReading* stacks = nullptr);

}  // namespace canopy::analyze
