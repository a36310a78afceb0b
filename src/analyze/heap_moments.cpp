#include "analyze/heap_moments.h"

#include <map>
#include <unordered_map>

namespace canopy::analyze {

std::vector<HeapImageAt> heap_images_at(const store::HeapProfile& profile, HeapAt at) {
  std::unordered_map<int64_t, std::vector<const store::HeapStackTotalsRow*>> totals_by_snapshot;
  for (const store::HeapStackTotalsRow& row : profile.totals) {
    totals_by_snapshot[row.snapshot_id].push_back(&row);
  }
  std::unordered_map<int64_t, std::vector<const store::HeapSnapshotRow*>> snapshots_by_image;
  for (const store::HeapSnapshotRow& snapshot : profile.snapshots) {
    snapshots_by_image[snapshot.image_id].push_back(&snapshot);
  }
  std::vector<HeapImageAt> images;
  for (const store::HeapImageRow& image : profile.images) {
    auto& snapshots = snapshots_by_image[image.id];
    if (snapshots.empty()) {
      continue;
    }
    std::stable_sort(snapshots.begin(), snapshots.end(),
                     [](const auto* a, const auto* b) { return a->t_ms < b->t_ms; });
    const store::HeapSnapshotRow* chosen = snapshots.back();
    if (at == HeapAt::kPeak) {
      chosen = nullptr;  // the first snapshot at the highest estimate
      for (const store::HeapSnapshotRow* snapshot : snapshots) {
        if (!chosen || snapshot->in_use_bytes > chosen->in_use_bytes) {
          chosen = snapshot;
        }
      }
    }
    std::map<int64_t, HeapStackTotals> carried;
    for (const store::HeapSnapshotRow* snapshot : snapshots) {
      for (const store::HeapStackTotalsRow* row : totals_by_snapshot[snapshot->id]) {
        carried[row->stack_id] = {row->stack_id, row->allocated_bytes, row->allocated_count, row->freed_bytes,
                                  row->freed_count};
      }
      if (snapshot == chosen) {
        break;
      }
    }
    HeapImageAt image_at{image, *chosen, {}};
    image_at.stacks.reserve(carried.size());
    for (const auto& [stack_id, totals] : carried) {
      image_at.stacks.push_back(totals);
    }
    images.push_back(std::move(image_at));
  }
  return images;
}

std::optional<store::ProcessRow> heap_image_process(const store::HeapImageRow& image,
                                                    const std::vector<store::ProcessRow>& processes) {
  for (const store::ProcessRow& process : processes) {
    if (image.process_id ? process.id == *image.process_id
                         : process.pid == image.pid && process.start_ms <= image.started_ms &&
                               image.started_ms <= process.end_ms.value_or(image.started_ms)) {
      return process;
    }
  }
  return std::nullopt;
}

}  // namespace canopy::analyze
