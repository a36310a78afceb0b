// Watches the run's limits from the recorder's loop: stops the whole tree when its
// --timeout is up (SIGTERM, then SIGKILL after the grace), notes on the timeline each
// limit that bit a process, and turns what happened into canopy's exit status.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>

#include "record/options.h"
#include "record/tree_sampler.h"
#include "store/writer.h"

namespace canopy::record {

class LimitWatch {
 public:
  LimitWatch(const ResourceLimits& limits, store::Writer& writer, TreeSampler& sampler, int64_t start_ms)
      : limits_(limits), writer_(writer), sampler_(sampler), start_ms_(start_ms) {}

  // Every tick, and once more at the end: the timeout's deadlines, and the processes
  // a limit killed since the last call.
  void tick(int64_t t_ms);
  // After the root has ended: when the run was stopped, what is left of the tree
  // (daemons, orphans) is stopped too, SIGKILL when the grace runs out. Returns true
  // while some of it may still be running, so the caller keeps reaping.
  bool stop_leftovers(int64_t t_ms);

  bool timed_out() const { return timeout_at_.has_value(); }
  // What stopped the run or hit a process: "timeout", "cpu-time", empty.
  const std::string& hit() const { return hit_; }
  // canopy's exit status for the command's: 124 after a timeout, 122 when the
  // command failed and a limit had hit.
  int exit_status(int command_status) const;

 private:
  void signal_tree(int signal);
  void note(int64_t t_ms, std::optional<int64_t> process_id, const std::string& text);

  ResourceLimits limits_;
  store::Writer& writer_;
  TreeSampler& sampler_;
  int64_t start_ms_;
  std::optional<int64_t> timeout_at_;  // when SIGTERM went out
  bool killed_ = false;                // SIGKILL went out
  std::unordered_set<pid_t> termed_;   // sent SIGTERM once: a second could cut its cleanup short
  std::string hit_;
};

}  // namespace canopy::record
