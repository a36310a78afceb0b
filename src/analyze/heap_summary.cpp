#include "analyze/heap_summary.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "analyze/heap_moments.h"

namespace canopy::analyze {
namespace {

HeapMoment moment_of(const HeapImageHistory& history, size_t index, size_t top) {
  const store::HeapSnapshotRow& snapshot = *history.snapshots[index];
  const int64_t rate_bytes = history.image->rate_bytes;
  HeapMoment moment{snapshot.t_ms, snapshot.in_use_bytes, {}, 0, 0, std::nullopt};
  for (const auto& [stack_id, changes] : history.stacks) {
    HeapStackTotals t = history.totals_at(stack_id, index);
    if (t.in_use_bytes() <= 0) {
      continue;
    }
    double mean_size = t.allocated_count > 0 ? static_cast<double>(t.allocated_bytes) / t.allocated_count : 0;
    double seen = rate_bytes > 0 ? -std::expm1(-mean_size / static_cast<double>(rate_bytes)) : 0;
    moment.top.push_back({stack_id, t.in_use_bytes(), std::max<int64_t>(t.in_use_count(), 0), t.allocated_bytes,
                          t.allocated_count, seen, {}});
  }
  std::sort(moment.top.begin(), moment.top.end(), [](const HeapStackHeld& a, const HeapStackHeld& b) {
    return a.in_use_bytes != b.in_use_bytes ? a.in_use_bytes > b.in_use_bytes : a.stack_id < b.stack_id;
  });
  std::tie(moment.other_stacks, moment.other_bytes) =
      keep_top(moment.top, top, [](const HeapStackHeld& held) { return held.in_use_bytes; });
  for (HeapStackHeld& held : moment.top) {
    held.verdict = judge_heap_stack(history, held.stack_id, history.snapshots.size() - 1);
  }
  return moment;
}

}  // namespace

std::vector<HeapImageSummary> summarize_heap(const std::vector<HeapImageHistory>& histories,
                                             const std::vector<store::ProcessRow>& processes, const RssSeries& rss,
                                             size_t top) {
  std::vector<HeapImageSummary> summaries;
  for (const HeapImageHistory& history : histories) {
    HeapImageSummary summary{*history.image, heap_image_process(*history.image, processes),
                             static_cast<int64_t>(history.snapshots.size()), std::nullopt, std::nullopt};
    if (!history.snapshots.empty()) {
      // The peak: the first snapshot at the image's highest estimate.
      size_t peak = 0;
      for (size_t i = 1; i < history.snapshots.size(); ++i) {
        if (history.snapshots[i]->in_use_bytes > history.snapshots[peak]->in_use_bytes) {
          peak = i;
        }
      }
      summary.peak = moment_of(history, peak, top);
      for (const store::HeapSnapshotRow* snapshot : history.snapshots) {
        summary.high_water_bytes = std::max(summary.high_water_bytes, snapshot->peak_in_use_bytes);
      }
      summary.end = moment_of(history, history.snapshots.size() - 1, top);
      if (summary.process) {
        summary.peak->rss = rss_at(rss, summary.process->id, summary.peak->t_ms);
        summary.end->rss = rss_at(rss, summary.process->id, summary.end->t_ms);
      }
    }
    summaries.push_back(std::move(summary));
  }
  std::stable_sort(summaries.begin(), summaries.end(), [](const HeapImageSummary& a, const HeapImageSummary& b) {
    return a.image.started_ms < b.image.started_ms;
  });
  return summaries;
}

bool reached_between_snapshots(int64_t high_water_bytes, int64_t highest_snapshot_bytes) {
  return static_cast<double>(high_water_bytes) > 1.05 * static_cast<double>(highest_snapshot_bytes);
}

std::optional<int64_t> high_water_between_snapshots(const HeapImageHistory& history, size_t index) {
  int64_t high_water = 0;
  int64_t highest_snapshot = 0;
  for (size_t i = 0; i <= index && i < history.snapshots.size(); ++i) {
    high_water = std::max(high_water, history.snapshots[i]->peak_in_use_bytes);
    highest_snapshot = std::max(highest_snapshot, history.snapshots[i]->in_use_bytes);
  }
  if (!reached_between_snapshots(high_water, highest_snapshot)) {
    return std::nullopt;
  }
  return high_water;
}

std::string heap_image_ending_text(const store::HeapImageRow& image, bool recording_ended) {
  if (image.end == "exit") {
    return "to its exit";
  }
  if (image.end == "lost") {
    return "until its last snapshot (an exec or a signal ended it without one)";
  }
  return recording_ended ? "until the recording ended" : "until its last snapshot (the recording did not end)";
}

}  // namespace canopy::analyze
