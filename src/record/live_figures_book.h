// Builds the live figures (live/live_figures.h) from the sampler's latest tick, and keeps
// the one thing the tick does not: each command's CPU so far, which must never go
// down while processes end and exec. A process's CPU belongs to the command it ran
// when it used it; on an exec what it used so far stays with the old command.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "record/heap_in_use.h"
#include "record/limit_watch.h"
#include "live/live_figures.h"
#include "record/tree_sampler.h"

namespace canopy::record {

class LiveFiguresBook {
 public:
  // Each tick's figures go to every sink (record --metrics, --live).
  explicit LiveFiguresBook(std::vector<live::LiveFiguresSink*> sinks) : sinks_(std::move(sinks)) {}

  // After a tick: the figures as the sampler and the limit watch now hold them, to the
  // sinks. `limits`: the run's limit watch, for the cgroup's counters; nullptr without one.
  // `heap`: with --heap, each process's latest heap in use; nullptr without.
  void publish(int64_t t_ms, const TreeSampler& sampler, const LimitWatch* limits,
               const HeapInUseTable* heap = nullptr);

  // After the recorder's commit, to every sink.
  void committed();
  // Whether a sink is watched (live::LiveFiguresSink::watched).
  bool watched() const;

  // The figures as publish() would hand them, for tests.
  std::shared_ptr<live::LiveFigures> build(int64_t t_ms, const TreeSampler& sampler, const LimitWatch* limits,
                                     const HeapInUseTable* heap = nullptr);

 private:
  struct ProcessBook {
    std::string command;
    int64_t user_ns = 0;  // as last seen
    int64_t system_ns = 0;
    int64_t user_base_ns = 0;  // what it used before it ran `command`
    int64_t system_base_ns = 0;
    uint64_t seen_round = 0;
  };
  struct Spent {
    int64_t user_ns = 0;
    int64_t system_ns = 0;
  };
  void close(const ProcessBook& process);

  std::vector<live::LiveFiguresSink*> sinks_;
  std::unordered_map<int64_t, ProcessBook> processes_;  // by process id, live at the last round
  std::unordered_map<std::string, Spent> ended_;         // CPU left behind by ended or exec'd processes
  std::vector<LiveProcess> live_;                        // scratch
  uint64_t round_ = 0;
  int64_t tree_cpu_ns_ = 0;
  std::optional<int64_t> last_t_ms_;  // the previous round's tick
  int64_t peak_rss_bytes_ = 0;
  int64_t peak_t_ms_ = 0;
};

}  // namespace canopy::record
