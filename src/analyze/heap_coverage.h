// analyze/: which processes of a heap recording (record --heap) the profiler did not
// report from, grouped by why (store/heap_rows.h, HeapUnprofiledRow), with the first
// few of each group to name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/heap_rows.h"
#include "store/recording.h"

namespace canopy::analyze {

struct UnprofiledGroup {
  std::string reason;  // as recorded: one of store::kUnprofiled*, or a newer canopy's
  int64_t processes = 0;
  std::vector<store::ProcessRow> first;  // the first few, in order of discovery
};

struct HeapCoverageSummary {
  enum class State {
    kNoHeap,       // not a heap recording (or one killed before any process reported): nothing to say
    kRecorded,     // the groups are the recording's word
    kNotRecorded,  // a heap recording by a canopy from before it recorded this
    kUnfinished,   // the recording did not end (the recorder was killed): it is decided at the end
  };
  State state = State::kNoHeap;
  int64_t processes = 0;   // in the tree (or those of the PID asked for)
  int64_t unprofiled = 0;  // of them
  int64_t rate_bytes = 0;  // the recording's sampling rate, when any process went unprofiled
  std::vector<UnprofiledGroup> groups;  // the most processes first
};

// What a recorded reason means, for a reader of the report or the viewer, at the
// recording's sampling rate; a reason a newer canopy recorded reads as such.
std::string unprofiled_meaning(const std::string& reason, int64_t rate_bytes);

// `processes`: those of the recording to count (all, or one PID's); `ended`: whether
// the recording has its end (meta end_ms); `examples`: how many to name per reason.
HeapCoverageSummary summarize_heap_coverage(const store::HeapProfile& profile,
                                            const std::vector<store::ProcessRow>& processes, bool ended,
                                            size_t examples);

}  // namespace canopy::analyze
