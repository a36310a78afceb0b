#include "analyze/heap_summary.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "analyze/heap_moments.h"

namespace canopy::analyze {
namespace {

HeapMoment moment_of(const HeapImageAt& at, size_t top) {
  HeapMoment moment{at.snapshot.t_ms, at.snapshot.in_use_bytes, {}, 0, 0};
  int64_t rate_bytes = at.image.rate_bytes;
  for (const HeapStackTotals& t : at.stacks) {
    int64_t in_use = t.allocated_bytes - t.freed_bytes;
    if (in_use <= 0) {
      continue;
    }
    double mean_size = t.allocated_count > 0 ? static_cast<double>(t.allocated_bytes) / t.allocated_count : 0;
    double seen = rate_bytes > 0 ? -std::expm1(-mean_size / static_cast<double>(rate_bytes)) : 0;
    moment.top.push_back({t.stack_id, in_use, t.in_use_count(), t.allocated_bytes, t.allocated_count, seen});
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
  std::unordered_map<int64_t, int64_t> snapshots_by_image;
  for (const store::HeapSnapshotRow& snapshot : profile.snapshots) {
    ++snapshots_by_image[snapshot.image_id];
  }
  std::unordered_map<int64_t, HeapMoment> peaks;
  for (const HeapImageAt& at : heap_images_at(profile, HeapAt::kPeak)) {
    peaks.emplace(at.image.id, moment_of(at, top));
  }
  std::unordered_map<int64_t, HeapMoment> ends;
  for (const HeapImageAt& at : heap_images_at(profile, HeapAt::kEnd)) {
    ends.emplace(at.image.id, moment_of(at, top));
  }
  std::vector<HeapImageSummary> summaries;
  for (const store::HeapImageRow& image : profile.images) {
    HeapImageSummary summary{image, heap_image_process(image, processes), snapshots_by_image[image.id], std::nullopt,
                             std::nullopt};
    if (auto peak = peaks.find(image.id); peak != peaks.end()) {
      summary.peak = std::move(peak->second);
    }
    if (auto end = ends.find(image.id); end != ends.end()) {
      summary.end = std::move(end->second);
    }
    summaries.push_back(std::move(summary));
  }
  std::stable_sort(summaries.begin(), summaries.end(), [](const HeapImageSummary& a, const HeapImageSummary& b) {
    return a.image.started_ms < b.image.started_ms;
  });
  return summaries;
}

}  // namespace canopy::analyze
