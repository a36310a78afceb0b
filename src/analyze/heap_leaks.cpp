#include "analyze/heap_leaks.h"

#include <algorithm>
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

std::vector<GrowthFinding> growth_beyond_heap_leaks(const GrowthReport& growth, const HeapLeakReport& leaks) {
  std::set<int64_t> leaking;
  for (const HeapLeak& leak : leaks.leaks) {
    leaking.insert(leak.pid);
  }
  std::vector<GrowthFinding> beyond;
  for (const GrowthFinding& finding : growth.findings) {
    if (finding.verdict != GrowthFinding::Verdict::kReturned && !leaking.contains(finding.pid)) {
      beyond.push_back(finding);
    }
  }
  return beyond;
}

}  // namespace canopy::analyze
