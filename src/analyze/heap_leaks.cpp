#include "analyze/heap_leaks.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "analyze/heap_history.h"
#include "analyze/heap_summary.h"

namespace canopy::analyze {
namespace {

// What an image's stacks held, each where it was judged, and how much of it too few
// sampled allocations or snapshots left unjudged.
struct HeldBy {
  int64_t bytes = 0;
  int64_t unjudged_bytes = 0;
  int64_t unjudged_sampled = 0;
  std::optional<int64_t> largest_unjudged_stack;
  HeapVerdict largest_unjudged;

  void add(int64_t stack_id, const HeapVerdict& verdict) {
    bytes += verdict.held_bytes;
    if (verdict.reason != HeapVerdict::Reason::kTooFewSamples &&
        verdict.reason != HeapVerdict::Reason::kTooFewSnapshots) {
      return;
    }
    unjudged_bytes += verdict.held_bytes;
    unjudged_sampled += verdict.held_sampled;
    if (!largest_unjudged_stack || verdict.held_bytes > largest_unjudged.held_bytes) {
      largest_unjudged_stack = stack_id;
      largest_unjudged = verdict;
    }
  }
  bool mostly_unjudged() const { return 2 * unjudged_bytes > bytes && unjudged_sampled >= kVerdictMinSampled; }
};

bool holds_more(const HeapLeak& a, const HeapLeak& b) { return a.verdict.held_bytes > b.verdict.held_bytes; }

}  // namespace

HeapLeakReport heap_leak_report(const std::vector<HeapImageHistory>& histories,
                                const std::vector<store::ProcessRow>& processes) {
  HeapLeakReport report;
  for (const HeapImageHistory& history : histories) {
    ++report.images;
    if (history.snapshots.empty()) {
      continue;
    }
    auto process = heap_image_process(*history.image, processes);
    const std::string name = process ? process->name : "?";
    size_t end = history.snapshots.size() - 1;
    bool leaked = false;
    HeldBy held;
    for (const auto& [stack_id, changes] : history.stacks) {
      // Judged even when it holds nothing at the end: a leak that only the exit freed.
      HeapVerdict verdict = judge_heap_stack(history, stack_id, end);
      if (verdict.kind == HeapVerdict::Kind::kLeak && verdict.held_bytes > 0) {
        report.leaks.push_back({history.image->pid, name, stack_id, verdict});
        leaked = true;
      }
      held.add(stack_id, verdict);
    }
    if (!leaked && held.mostly_unjudged()) {
      report.unjudged.push_back({history.image->pid, name, *held.largest_unjudged_stack, held.largest_unjudged});
      continue;
    }
    ++report.images_judged;
    report.images_leaking += leaked ? 1 : 0;
  }
  std::stable_sort(report.leaks.begin(), report.leaks.end(), holds_more);
  std::stable_sort(report.unjudged.begin(), report.unjudged.end(), holds_more);
  return report;
}

std::vector<GrowthFinding> growth_beyond_heap(const GrowthReport& growth, const HeapLeakReport& report,
                                              const std::vector<HeapImageHistory>& histories,
                                              const std::vector<store::ProcessRow>& processes) {
  std::set<int64_t> leaking;
  for (const HeapLeak& leak : report.leaks) {
    leaking.insert(leak.pid);
  }
  std::vector<const GrowthFinding*> candidates;
  std::set<int64_t> candidate_pids;
  for (const GrowthFinding& finding : growth.findings) {
    if (finding.verdict != GrowthFinding::Verdict::kReturned && !leaking.contains(finding.pid)) {
      candidates.push_back(&finding);
      candidate_pids.insert(finding.pid);
    }
  }
  // How far each candidate's heap in use rose, over the snapshots of all its images: from
  // the lowest it stood at to the highest it reached (the high-water marks count, so a
  // rise between two snapshots is not missed). Only images of a candidate's PID are
  // matched to their process.
  struct HeapRange {
    std::optional<int64_t> lowest;
    int64_t highest = 0;
  };
  std::map<int64_t, HeapRange> by_process_id;
  for (const HeapImageHistory& history : histories) {
    if (!candidate_pids.contains(history.image->pid)) {
      continue;
    }
    auto process = heap_image_process(*history.image, processes);
    if (!process) {
      continue;
    }
    HeapRange& range = by_process_id[process->id];
    for (const store::HeapSnapshotRow* snapshot : history.snapshots) {
      range.lowest = std::min(range.lowest.value_or(snapshot->in_use_bytes), snapshot->in_use_bytes);
      range.highest = std::max({range.highest, snapshot->in_use_bytes, snapshot->peak_in_use_bytes});
    }
  }
  std::vector<GrowthFinding> beyond;
  for (const GrowthFinding* finding : candidates) {
    auto range = by_process_id.find(finding->process_id);
    // 0 for a process the profile has nothing of.
    const int64_t heap_rise = range != by_process_id.end() && range->second.lowest
                                  ? range->second.highest - *range->second.lowest
                                  : 0;
    // A heap that rose as much holds the growth, and its stacks were judged no leak (a
    // cache that filled up, say): the profile's verdict stands.
    if (2 * heap_rise < finding->max_bytes - finding->start_bytes) {
      beyond.push_back(*finding);
    }
  }
  return beyond;
}

}  // namespace canopy::analyze
