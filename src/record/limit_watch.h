// Watches the run's limits from the recorder's loop: stops the whole tree when its
// --timeout is up or (with a cgroup) its --cpu-time is used up (SIGTERM, then SIGKILL
// after the grace), records the cgroup's figures each tick, notes on the timeline
// each limit that bit (naming the process an OOM kill hit), and turns what happened
// into canopy's exit status.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "record/command_cgroup.h"
#include "record/options.h"
#include "record/tree_sampler.h"
#include "store/writer.h"

namespace canopy::record {

class LimitWatch {
 public:
  LimitWatch(const ResourceLimits& limits, const CommandCgroup* cgroup, store::Writer& writer, TreeSampler& sampler,
             int64_t start_ms)
      : limits_(limits), cgroup_(cgroup), writer_(writer), sampler_(sampler), start_ms_(start_ms) {}

  // Every tick; last_tick once more at the end, which reads every counter.
  void tick(int64_t t_ms) { watch(t_ms, false); }
  void last_tick(int64_t t_ms) { watch(t_ms, true); }
  // After the root has ended: when the run was stopped, what is left of the tree
  // (daemons, orphans) is stopped too, SIGKILL when the grace runs out. Returns true
  // while some of it may still be running, so the caller keeps reaping.
  bool stop_leftovers(int64_t t_ms);

  // The cgroup's counters as last read (zeros without a cgroup).
  const CgroupReading& counters() const { return last_; }
  // The cgroup's memory at the latest tick; none without a cgroup that gives it.
  std::optional<int64_t> memory_bytes() const {
    return last_counters_ms_ ? std::optional(last_.memory_bytes) : std::nullopt;
  }
  // The OOM kills named so far, by the killed process's command.
  const std::unordered_map<std::string, int64_t>& oom_kills_by_command() const { return oom_kills_by_command_; }

  // What hit: "timeout", "cpu-time", "memory", "max-processes"; empty when nothing.
  const std::string& hit() const { return hit_; }
  // canopy's exit status for the command's: 124 after a timeout, 122 when the
  // command failed and a limit had hit.
  int exit_status(int command_status) const;

 private:
  void watch(int64_t t_ms, bool last);
  void read_cgroup(int64_t t_ms, bool last);
  void name_killed(int64_t t_ms);
  void stop_tree(int64_t t_ms, const std::string& why, const std::string& hit);
  void continue_stopping(int64_t t_ms);
  std::vector<pid_t> tree() const;
  void note(int64_t t_ms, std::optional<int64_t> process_id, const std::string& text);
  void set_hit(const std::string& hit);
  void note_memory_limit_reached(int64_t t_ms);

  ResourceLimits limits_;
  const CommandCgroup* cgroup_;
  store::Writer& writer_;
  TreeSampler& sampler_;
  int64_t start_ms_;
  std::optional<int64_t> stopping_since_;  // when SIGTERM went out
  bool killed_ = false;                    // SIGKILL went out
  std::unordered_set<pid_t> termed_;       // sent SIGTERM once: a second could cut its cleanup short
  // The cgroup's peak, OOM kills and limit hits are read at least this often, and at
  // the end.
  static constexpr int64_t kCountersAtLeastEveryMs = 1000;
  // How long a SIGKILL'd process waits to be matched with an OOM kill the cgroup counts.
  static constexpr int64_t kOomKillMatchMs = 2000;
  CgroupReading last_;                     // the previous tick's counters
  // When read_counters last ran; none before the first tick that read the cgroup's
  // memory (until then last_ holds zeros, not the cgroup's figures).
  std::optional<int64_t> last_counters_ms_;
  bool memory_limit_reached_ = false;
  // When the tree was seen at its memory limit, until that is noted: an OOM kill it
  // caused may show it was earlier.
  std::optional<int64_t> memory_limit_note_due_ms_;
  int64_t oom_kills_unnamed_ = 0;          // counted by the cgroup, process not yet seen ending
  std::vector<store::ProcessRow> sigkilled_;  // recent SIGKILL ends, candidates for OOM kills
  std::unordered_map<std::string, int64_t> oom_kills_by_command_;
  std::string hit_;
};

}  // namespace canopy::record
