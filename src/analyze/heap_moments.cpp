#include "analyze/heap_moments.h"

namespace canopy::analyze {

std::vector<HeapImageAt> heap_images_at(const store::HeapProfile& profile, HeapAt at) {
  std::vector<HeapImageAt> images;
  for (const HeapImageHistory& history : heap_histories(profile)) {
    if (history.snapshots.empty()) {
      continue;
    }
    size_t chosen = history.snapshots.size() - 1;
    if (at == HeapAt::kPeak) {
      chosen = 0;  // the first snapshot at the highest estimate
      for (size_t i = 1; i < history.snapshots.size(); ++i) {
        if (history.snapshots[i]->in_use_bytes > history.snapshots[chosen]->in_use_bytes) {
          chosen = i;
        }
      }
    }
    HeapImageAt image_at{*history.image, *history.snapshots[chosen], {}};
    for (const auto& [stack_id, changes] : history.stacks) {
      if (changes.front().snapshot <= chosen) {  // sampled by then
        image_at.stacks.push_back(history.totals_at(stack_id, chosen));
      }
    }
    images.push_back(std::move(image_at));
  }
  return images;
}

}  // namespace canopy::analyze
