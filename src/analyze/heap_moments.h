// analyze/: each profiled process image's heap at one of its snapshots, stack by
// stack: what `canopy heap` summarizes and the heap exports write. A snapshot's
// totals list only the stacks that changed since the image's previous one; here they
// are carried forward, so that each stack has its cumulative totals at the moment.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "store/heap_rows.h"
#include "store/recording.h"

namespace canopy::analyze {

// Which snapshot of an image: its last (the image's end, or the last the recorder
// had of it), or the first at its highest estimated heap.
enum class HeapAt { kEnd, kPeak };

// One stack's estimates in one image, cumulative from the image's start to the moment.
struct HeapStackTotals {
  int64_t stack_id = 0;
  int64_t allocated_bytes = 0;
  int64_t allocated_count = 0;
  int64_t freed_bytes = 0;
  int64_t freed_count = 0;

  // Never below 0: the freed figures are sums over a subset of the allocated ones,
  // and only rounding could take the difference under.
  int64_t in_use_bytes() const { return std::max<int64_t>(allocated_bytes - freed_bytes, 0); }
  int64_t in_use_count() const { return std::max<int64_t>(allocated_count - freed_count, 0); }
};

struct HeapImageAt {
  store::HeapImageRow image;
  store::HeapSnapshotRow snapshot;
  std::vector<HeapStackTotals> stacks;  // by stack id; every stack the image ever sampled
};

// The image of `at` for every image that sent at least one snapshot, in the profile's
// order of images.
std::vector<HeapImageAt> heap_images_at(const store::HeapProfile& profile, HeapAt at);

// The process an image ran in: the recorder's link, else the process of that PID
// whose life holds the image's start (a link the recorder could not make as the image
// began, its process not yet seen).
std::optional<store::ProcessRow> heap_image_process(const store::HeapImageRow& image,
                                                    const std::vector<store::ProcessRow>& processes);

}  // namespace canopy::analyze
