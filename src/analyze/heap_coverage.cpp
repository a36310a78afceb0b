#include "analyze/heap_coverage.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "common/text.h"

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

std::string unprofiled_meaning(const std::string& reason, int64_t rate_bytes) {
  if (reason == store::kUnprofiledStatic) {
    return "statically linked: no dynamic loader to preload the profiler";
  }
  if (reason == store::kUnprofiledSetuid) {
    return "setuid, setgid or file capabilities: the loader ignores LD_PRELOAD for them";
  }
  if (reason == store::kUnprofiledEnvironment) {
    return "its environment lost LD_PRELOAD or CANOPY_HEAP_SOCKET (env -i, sudo, a wrapper)";
  }
  if (reason == store::kUnprofiledNoSamples) {
    if (rate_bytes <= 0) {
      return "the profiler loaded, sampling off, and ended before it connected";
    }
    // Loaded, it reports at exit() even with no sample: what it missed ended otherwise.
    return "the profiler loaded, sampled nothing (less than about " + format_bytes(rate_bytes) +
           " allocated) and saw no exit() (_exit, a signal, or running at the end)";
  }
  if (reason == store::kUnprofiledSanitizer) {
    return "built with a sanitizer (ASan, TSan, LSan), whose allocator it uses: the profiler stood aside, "
           "so that the sanitizer's reports stay as they are";
  }
  if (reason == store::kUnprofiledOwnMalloc) {
    return "its malloc comes before the profiler's (an allocator linked into it: Chromium's PartitionAlloc, "
           "mold's mimalloc, a static tcmalloc or jemalloc; or one preloaded ahead of it), which the profiler cannot "
           "see: it stood aside";
  }
  if (reason == store::kUnprofiled32Bit || reason == store::kUnprofiled64Bit) {
    return "another word size than the profiler's: the loader skips it";
  }
  if (reason == store::kUnprofiledOtherUser) {
    return "it ran as another user (su USER -c, runuser, setpriv), who may not reach the recorder's socket: "
           "record as that user";
  }
  if (reason == store::kUnprofiledUnknown) {
    return "ended before canopy could look at it";
  }
  return "as recorded by a newer canopy";
}

}  // namespace canopy::analyze
