// analyze/: what each profiled process image's heap held and where it came from. From
// a recording's heap snapshots (record --heap): the image's high-water mark and its
// end, and at each, the stacks that held the most, estimated from the samples, with
// how likely an allocation of the stack's typical size was to be seen at all, each
// stack's verdict (heap_verdict.h), and the process's resident memory then.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/heap_history.h"
#include "analyze/heap_rss.h"
#include "analyze/heap_verdict.h"
#include "store/heap_rows.h"
#include "store/recording.h"

namespace canopy::analyze {

struct HeapStackHeld {
  int64_t stack_id = 0;
  int64_t in_use_bytes = 0;    // estimated
  int64_t in_use_count = 0;    // estimated allocations
  int64_t allocated_bytes = 0; // estimated, since the image started
  int64_t allocated_count = 0;
  // The chance that one allocation of this stack's mean size was sampled: near 1, a
  // stack with no estimate is truly absent; far below, it could have been missed.
  double seen_probability = 0;
  HeapVerdict verdict;  // judged at the image's last snapshot, whichever the moment
};

struct HeapMoment {
  int64_t t_ms = 0;
  int64_t in_use_bytes = 0;              // the whole heap, estimated
  std::vector<HeapStackHeld> top;        // by in_use_bytes, the largest first
  int64_t other_stacks = 0;              // holding memory but not in `top`
  int64_t other_bytes = 0;
  std::optional<RssPoint> rss;           // the process's last sample by then
};

struct HeapImageSummary {
  store::HeapImageRow image;
  std::optional<store::ProcessRow> process;  // when the recording ties the image to one
  int64_t snapshots = 0;
  std::optional<HeapMoment> peak;  // the snapshot where the estimated heap was highest
  std::optional<HeapMoment> end;   // the last snapshot
  // The profiler's estimate of the heap's high-water mark, kept as each sample comes,
  // so between snapshots too: a new peak is sent only a quarter above the last one, and
  // a heap freed before exit (Python's finalization) leaves its top to no snapshot.
  int64_t high_water_bytes = 0;
};

// Every image of the profile, in order of start; `top` stacks at each moment. `rss`
// may be empty (then no moment has one).
std::vector<HeapImageSummary> summarize_heap(const std::vector<HeapImageHistory>& histories,
                                             const std::vector<store::ProcessRow>& processes, const RssSeries& rss,
                                             size_t top);

// Whether a high-water estimate is worth saying beside the snapshots: above the highest
// of them by more than the 5% a reader would take for the same figure.
bool reached_between_snapshots(int64_t high_water_bytes, int64_t highest_snapshot_bytes);

// The image's high-water estimate by its snapshot `index` (each snapshot carries the
// estimate so far), when reached_between_snapshots says it is worth saying then.
std::optional<int64_t> high_water_between_snapshots(const HeapImageHistory& history, size_t index);

// How far an image's profile goes, for the texts that describe it: "to its exit", or
// until which snapshot and why. `recording_ended`: false for a recording whose recorder
// was killed, where an image without an end may have gone on after its last snapshot.
std::string heap_image_ending_text(const store::HeapImageRow& image, bool recording_ended);

}  // namespace canopy::analyze
