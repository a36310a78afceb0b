// What the viewer may change in a recording being made: the heap profiler's sampling
// and snapshots, and a memory-map snapshot, in one process of the tree. The recorder
// implements it (it owns the profilers' connections); web/ only calls it, so web/ does
// not depend on how the commands travel. The server exposes it only when given one
// (ServerOptions::control), behind a per-server token (web/API.md, /api/control).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "common/result.h"

namespace canopy::web {

class LiveControl {
 public:
  virtual ~LiveControl() = default;

  // Each call refuses, as one line naming the PID and the cause, a PID that is not a
  // live process of the recorded tree, or one whose profiler is not loaded.
  virtual Status set_heap_sampling(int64_t pid, bool on) = 0;
  // Asks the process's heap profiler for a snapshot now; it reaches the recording
  // within the profiler's next commit.
  virtual Status take_heap_snapshot(int64_t pid) = 0;
  // The process's memory by mapping kind: {"pid", "t_ms", "groups": [{"kind",
  // "mappings", "size_bytes", "rss_bytes", "pss_bytes", "anonymous_bytes",
  // "swap_bytes"}]} (web/API.md).
  virtual Result<nlohmann::json> take_memory_map(int64_t pid) = 0;
  // The live processes and their profilers' states: [{"pid", "name", "heap":
  // "on"|"off"|"not loaded", "cpu": "on"|"off"}].
  virtual nlohmann::json profiler_states() = 0;
};

}  // namespace canopy::web
