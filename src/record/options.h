// What `canopy record` was asked to do, after the CLI has parsed and checked it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace canopy::live {
class LiveFiguresSink;  // live/live_figures.h
}  // namespace canopy::live

namespace canopy::record {

inline constexpr int64_t kDefaultIntervalMs = 100;
// The longest sampling interval (--interval, --pss-interval, CANOPY_INTERVAL): an hour.
inline constexpr int64_t kIntervalMostMs = 3'600'000;
inline constexpr int64_t kDefaultHeapRateBytes = 512 * 1024;
inline constexpr int64_t kDefaultHeapIntervalMs = 2000;
// The kernel caps sampling frequencies at kernel.perf_event_max_sample_rate (often
// 25000 to 100000, lowered by itself when sampling takes too long); canopy's cap keeps
// the profiler's own cost within reason whatever that says.
inline constexpr int64_t kMostCpuProfileHz = 10000;
// canopy's own failures (bad flag, unwritable output, ...): distinct from any status
// the command can give us through the shell's conventions (126, 127, 128+N).
inline constexpr int kExitRecorderFailed = 125;
// The command ran out of --timeout (as timeout(1) says it).
inline constexpr int kExitTimedOut = 124;
// The command failed after a limit of its tree was hit (an OOM kill under
// --memory-limit, --cpu-time used up, a fork refused by --max-processes).
inline constexpr int kExitLimitHit = 122;
// The command succeeded, but its tree went over a budget (--max-peak, --max-cpu); also
// `canopy report`'s status for a recording over the budgets it is given.
inline constexpr int kExitOverBudget = 123;

// Scarce resources to run the command under. The tree-wide ones use a cgroup where
// canopy can create one; per process rlimits stand in where not (see
// docs/limits-and-budgets.md).
struct ResourceLimits {
  std::optional<int64_t> memory_bytes;
  std::optional<int64_t> swap_bytes;
  std::optional<double> cpu_percent;  // of one CPU
  std::optional<std::string> cpus;    // affinity, "0,2-3"
  std::optional<int> nice;
  std::optional<int64_t> cpu_time_ms;
  std::optional<int64_t> max_processes;
  std::optional<int64_t> timeout_ms;  // wall clock
  int64_t kill_grace_ms = 5000;       // SIGTERM, then SIGKILL this much later
  bool any() const {
    return memory_bytes || swap_bytes || cpu_percent || cpus || nice || cpu_time_ms || max_processes ||
           timeout_ms;
  }
};

struct RecordOptions {
  std::vector<std::string> command;  // run mode
  pid_t attach_pid = 0;              // attach mode when non-zero
  // Attach mode: stop recording after this long, and leave the process running.
  std::optional<int64_t> attach_duration_ms;
  int64_t interval_ms = kDefaultIntervalMs;
  std::string output;  // empty: canopy-YYYYMMDD-HHMMSS-PID.canopy
  bool force = false;
  bool quiet = false;
  bool pss = false;
  int64_t pss_interval_ms = 1000;
  bool capture_output = false;  // store the command's stdout/stderr lines as events
  bool process_events = true;   // listen to the kernel's process events when permitted
  bool cgroup = true;            // run the command in a cgroup of its own when possible
  ResourceLimits limits;
  // record --heap: libcanopy-heap.so preloaded into the tree, sampling once per this
  // many bytes allocated on average; 0 loads it with sampling off. Empty: no heap profile.
  std::optional<int64_t> heap_rate_bytes;
  int64_t heap_interval_ms = kDefaultHeapIntervalMs;
  // record --cpu-profile[=HZ]: the kernel samples every thread of the tree this many
  // times a second of CPU it uses. Empty: no CPU profile.
  std::optional<int64_t> cpu_profile_hz;
  // record --metrics and --live: told the tree's figures after every tick
  // (live/live_figures.h).
  std::vector<live::LiveFiguresSink*> live_figures;
};

// The interval from CANOPY_INTERVAL, else ONLOOKER_POLL_INTERVAL (for users coming
// from Onlooker), else the default. Error text when the variable holds no number.
struct IntervalDefault {
  int64_t interval_ms;
  std::string error;
};
IntervalDefault interval_from_environment();

}  // namespace canopy::record
