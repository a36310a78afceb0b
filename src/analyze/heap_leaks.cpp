#include "analyze/heap_leaks.h"

#include <algorithm>
#include <optional>
#include <set>

#include "analyze/heap_history.h"
#include "analyze/heap_summary.h"

namespace canopy::analyze {

HeapLeakReport heap_leak_report(const store::HeapProfile& profile, const std::vector<store::ProcessRow>& processes) {
  HeapLeakReport report;
  for (const HeapImageHistory& history : heap_histories(profile)) {
    ++report.images;
    if (history.snapshots.empty()) {
      continue;
    }
    ++report.images_judged;
    auto process = heap_image_process(*history.image, processes);
    size_t end = history.snapshots.size() - 1;
    bool leaked = false;
    for (const auto& [stack_id, changes] : history.stacks) {
      // Judged even when it holds nothing at the end: a leak that only the exit freed.
      HeapVerdict verdict = judge_heap_stack(history, stack_id, end);
      if (verdict.kind == HeapVerdict::Kind::kLeak && verdict.held_bytes > 0) {
        report.leaks.push_back({history.image->pid, process ? process->name : "?", stack_id, verdict});
        leaked = true;
      }
    }
    report.images_leaking += leaked ? 1 : 0;
  }
  std::stable_sort(report.leaks.begin(), report.leaks.end(), [](const HeapLeak& a, const HeapLeak& b) {
    return a.verdict.held_bytes > b.verdict.held_bytes;
  });
  return report;
}

namespace {

// How far one process's heap in use rose, over the snapshots of all its images: from
// the lowest it stood at to the highest it reached (the high-water marks count, so a
// rise between two snapshots is not missed). 0 for a process the profile has nothing of.
int64_t heap_rise_bytes(int64_t process_id, const std::vector<HeapImageHistory>& histories,
                        const std::vector<store::ProcessRow>& processes) {
  std::optional<int64_t> lowest;
  int64_t highest = 0;
  for (const HeapImageHistory& history : histories) {
    auto process = heap_image_process(*history.image, processes);
    if (!process || process->id != process_id) {
      continue;
    }
    for (const store::HeapSnapshotRow* snapshot : history.snapshots) {
      lowest = std::min(lowest.value_or(snapshot->in_use_bytes), snapshot->in_use_bytes);
      highest = std::max({highest, snapshot->in_use_bytes, snapshot->peak_in_use_bytes});
    }
  }
  return lowest ? highest - *lowest : 0;
}

}  // namespace

std::vector<GrowthFinding> growth_beyond_heap(const GrowthReport& growth, const HeapLeakReport& report,
                                              const store::HeapProfile& profile,
                                              const std::vector<store::ProcessRow>& processes) {
  std::set<int64_t> leaking;
  for (const HeapLeak& leak : report.leaks) {
    leaking.insert(leak.pid);
  }
  const std::vector<HeapImageHistory> histories = heap_histories(profile);
  std::vector<GrowthFinding> beyond;
  for (const GrowthFinding& finding : growth.findings) {
    if (finding.verdict == GrowthFinding::Verdict::kReturned || leaking.contains(finding.pid)) {
      continue;
    }
    // A heap that rose as much holds the growth, and its stacks were judged no leak (a
    // cache that filled up, say): the profile's verdict stands.
    if (2 * heap_rise_bytes(finding.process_id, histories, processes) >= finding.max_bytes - finding.start_bytes) {
      continue;
    }
    beyond.push_back(finding);
  }
  return beyond;
}

}  // namespace canopy::analyze
