// analyze/: two questions of a heap profile that name a time. Which stacks grew
// between two moments, and how fast; and which held allocations older than an age at
// a moment, as memleak's -o lists outstanding allocations older than it.
//
// A moment falls on an image's snapshots: the last at or before it. Times are
// recording-clock milliseconds, like every t_ms of a recording.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analyze/heap_history.h"
#include "analyze/heap_verdict.h"
#include "store/recording.h"

namespace canopy::analyze {

struct HeapStackGrowth {
  int64_t stack_id = 0;
  int64_t from_bytes = 0;  // estimated, in use at the from-snapshot
  int64_t to_bytes = 0;
  double bytes_per_second = 0;  // (to - from) over the time between the snapshots
  HeapVerdict verdict = {};          // at the to-snapshot
};

struct HeapImageGrowth {
  const store::HeapImageRow* image = nullptr;
  std::optional<store::ProcessRow> process = std::nullopt;
  int64_t from_ms = 0;  // the snapshot's time, or the image's start when it began later
  int64_t to_ms = 0;
  int64_t from_in_use_bytes = 0;  // the whole heap
  int64_t to_in_use_bytes = 0;
  std::vector<HeapStackGrowth> top = {};  // by growth, the largest first; only stacks that grew
  int64_t other_stacks = 0;          // that grew, beyond `top`
  int64_t other_bytes = 0;
};

// The images with a snapshot by to_ms and alive after from_ms, in order of start.
std::vector<HeapImageGrowth> heap_growth(const std::vector<HeapImageHistory>& histories,
                                         const std::vector<store::ProcessRow>& processes, int64_t from_ms,
                                         int64_t to_ms, size_t top);

struct HeapStackAged {
  int64_t stack_id = 0;
  HeapEstimate older = {};         // sampled allocations alive at the moment, born age_ms or more before
  int64_t oldest_born_ms = 0;
  HeapVerdict verdict = {};        // at the moment's snapshot
};

struct HeapImageAged {
  const store::HeapImageRow* image = nullptr;
  std::optional<store::ProcessRow> process = std::nullopt;
  int64_t t_ms = 0;  // the snapshot the ages are taken at
  double older_bytes = 0;  // estimated, every stack
  std::vector<HeapStackAged> top = {};  // by older bytes, the largest first
  int64_t other_stacks = 0;
  double other_bytes = 0;
};

// At each image's snapshot at or before at_ms (its last when at_ms is empty): what it
// had held for age_ms or more. Images with no snapshot by then are left out.
std::vector<HeapImageAged> heap_older_than(const std::vector<HeapImageHistory>& histories,
                                           const std::vector<store::ProcessRow>& processes, int64_t age_ms,
                                           std::optional<int64_t> at_ms, size_t top);

}  // namespace canopy::analyze
