#include "analyze/heap_summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace canopy::analyze {
namespace {

struct Totals {
  int64_t allocated_bytes = 0;
  int64_t allocated_count = 0;
  int64_t freed_bytes = 0;
  int64_t freed_count = 0;
};

// The process an image ran in: the recorder's link, else the process of that PID
// whose life holds the image's start (a link the recorder could not make as the image
// began, its process not yet seen).
std::optional<store::ProcessRow> process_of(const store::HeapImageRow& image,
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

HeapMoment moment_of(const store::HeapSnapshotRow& snapshot, const std::map<int64_t, Totals>& totals,
                     int64_t rate_bytes, size_t top) {
  HeapMoment moment{snapshot.t_ms, snapshot.in_use_bytes, {}, 0, 0};
  for (const auto& [stack_id, t] : totals) {
    int64_t in_use = t.allocated_bytes - t.freed_bytes;
    if (in_use <= 0) {
      continue;
    }
    double mean_size = t.allocated_count > 0 ? static_cast<double>(t.allocated_bytes) / t.allocated_count : 0;
    double seen = rate_bytes > 0 ? -std::expm1(-mean_size / static_cast<double>(rate_bytes)) : 0;
    moment.top.push_back({stack_id, in_use, std::max<int64_t>(t.allocated_count - t.freed_count, 0),
                          t.allocated_bytes, t.allocated_count, seen});
  }
  std::sort(moment.top.begin(), moment.top.end(), [](const HeapStackHeld& a, const HeapStackHeld& b) {
    return a.in_use_bytes != b.in_use_bytes ? a.in_use_bytes > b.in_use_bytes : a.stack_id < b.stack_id;
  });
  for (size_t i = top; i < moment.top.size(); ++i) {
    ++moment.other_stacks;
    moment.other_bytes += moment.top[i].in_use_bytes;
  }
  if (moment.top.size() > top) {
    moment.top.resize(top);
  }
  return moment;
}

}  // namespace

std::vector<HeapImageSummary> summarize_heap(const store::HeapProfile& profile,
                                             const std::vector<store::ProcessRow>& processes, size_t top) {
  std::unordered_map<int64_t, std::vector<const store::HeapStackTotalsRow*>> totals_by_snapshot;
  for (const store::HeapStackTotalsRow& row : profile.totals) {
    totals_by_snapshot[row.snapshot_id].push_back(&row);
  }
  std::unordered_map<int64_t, std::vector<const store::HeapSnapshotRow*>> snapshots_by_image;
  for (const store::HeapSnapshotRow& snapshot : profile.snapshots) {
    snapshots_by_image[snapshot.image_id].push_back(&snapshot);
  }
  std::vector<HeapImageSummary> summaries;
  for (const store::HeapImageRow& image : profile.images) {
    HeapImageSummary summary{image, process_of(image, processes), 0, std::nullopt, std::nullopt};
    auto& snapshots = snapshots_by_image[image.id];
    std::stable_sort(snapshots.begin(), snapshots.end(),
                     [](const auto* a, const auto* b) { return a->t_ms < b->t_ms; });
    summary.snapshots = static_cast<int64_t>(snapshots.size());
    // The peak: the first snapshot at the image's highest estimate.
    const store::HeapSnapshotRow* peak = nullptr;
    for (const store::HeapSnapshotRow* snapshot : snapshots) {
      if (!peak || snapshot->in_use_bytes > peak->in_use_bytes) {
        peak = snapshot;
      }
    }
    // Totals carry forward: a snapshot lists only the stacks that changed since the
    // image's previous one.
    std::map<int64_t, Totals> carried;
    for (const store::HeapSnapshotRow* snapshot : snapshots) {
      for (const store::HeapStackTotalsRow* row : totals_by_snapshot[snapshot->id]) {
        carried[row->stack_id] = {row->allocated_bytes, row->allocated_count, row->freed_bytes, row->freed_count};
      }
      if (snapshot == peak) {
        summary.peak = moment_of(*snapshot, carried, image.rate_bytes, top);
      }
      if (snapshot == snapshots.back()) {
        summary.end = moment_of(*snapshot, carried, image.rate_bytes, top);
      }
    }
    summaries.push_back(std::move(summary));
  }
  std::stable_sort(summaries.begin(), summaries.end(), [](const HeapImageSummary& a, const HeapImageSummary& b) {
    return a.image.started_ms < b.image.started_ms;
  });
  return summaries;
}

}  // namespace canopy::analyze
