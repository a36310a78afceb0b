// analyze/: each profiled process image's heap at one of its snapshots, stack by
// stack: what `canopy heap` summarizes and the heap exports write. A snapshot's
// totals list only the stacks that changed since the image's previous one; here they
// are carried forward, so that each stack has its cumulative totals at the moment.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analyze/heap_history.h"
#include "store/heap_rows.h"
#include "store/recording.h"

namespace canopy::analyze {

// Which snapshot of an image: its last (the image's end, or the last the recorder
// had of it), or the first at its highest estimated heap.
enum class HeapAt { kEnd, kPeak };

struct HeapImageAt {
  store::HeapImageRow image;
  store::HeapSnapshotRow snapshot;
  std::vector<HeapStackTotals> stacks;  // by stack id; every stack the image ever sampled
};

// The image of `at` for every image that sent at least one snapshot, in the profile's
// order of images.
std::vector<HeapImageAt> heap_images_at(const store::HeapProfile& profile, HeapAt at);

}  // namespace canopy::analyze
