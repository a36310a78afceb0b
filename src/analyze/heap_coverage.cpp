#include "analyze/heap_coverage.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace canopy::analyze {

HeapCoverageSummary summarize_heap_coverage(const store::HeapProfile& profile,
                                            const std::vector<store::ProcessRow>& processes, bool ended,
                                            size_t examples) {
  using State = HeapCoverageSummary::State;
  HeapCoverageSummary summary;
  summary.processes = static_cast<int64_t>(processes.size());
  // Every recording has the heap tables: one made with --heap has an image or a reason
  // for each process of its tree (the reasons once it ended).
  if (profile.images.empty() && profile.unprofiled.empty()) {
    return summary;
  }
  if (!profile.unprofiled_recorded) {
    summary.state = profile.images.empty() ? State::kNoHeap : State::kNotRecorded;
    return summary;
  }
  // The rows are written as the recording ends: a recording without its end has none.
  if (!ended) {
    summary.state = State::kUnfinished;
    return summary;
  }
  summary.state = State::kRecorded;
  std::unordered_map<int64_t, const store::ProcessRow*> by_id;
  for (const store::ProcessRow& process : processes) {
    by_id[process.id] = &process;
  }
  std::map<std::string, UnprofiledGroup> groups;
  for (const store::HeapUnprofiledRow& row : profile.unprofiled) {  // by process id
    auto process = by_id.find(row.process_id);
    if (process == by_id.end()) {
      continue;  // not among the processes asked about
    }
    UnprofiledGroup& group = groups[row.reason];
    group.reason = row.reason;
    ++group.processes;
    if (group.first.size() < examples) {
      group.first.push_back(*process->second);
    }
    ++summary.unprofiled;
    summary.rate_bytes = row.rate_bytes;
  }
  for (auto& [reason, group] : groups) {
    summary.groups.push_back(std::move(group));
  }
  std::stable_sort(summary.groups.begin(), summary.groups.end(),
                   [](const UnprofiledGroup& a, const UnprofiledGroup& b) { return a.processes > b.processes; });
  return summary;
}

}  // namespace canopy::analyze
