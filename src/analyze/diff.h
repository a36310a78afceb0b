// analyze/: two recordings of the same job compared, process by process: which
// processes grew (memory, CPU), which are new or gone, and how the whole tree changed.
//
// Invariants: every process of A and of B is in exactly one place, a pair or an
// only-in list; figures are raw units (bytes, ns, ms), formatting is report/'s.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::analyze {

// One figure in A and in B.
struct Change {
  int64_t a = 0;
  int64_t b = 0;

  int64_t delta() const { return b - a; }
  // (b - a) / a: 0.5 is +50%. Growth from 0 has no ratio (nullopt); 0 to 0 is 0.
  std::optional<double> relative() const;
};

// One process of one recording, as the diff shows it.
struct DiffProcess {
  int64_t process_id = 0;
  int64_t pid = 0;
  std::vector<std::string> cmdline;
  int64_t start_t_ms = 0;  // since its recording's start
  int64_t peak_rss_bytes = 0;
  int64_t cpu_ns = 0;
};

// The rule that paired a process with its twin, in the order they are tried (diff.cpp).
enum class MatchedBy { kCommandLine, kShortCommand, kParent, kStartOrder };

// A process of A and its twin in B: the same key, paired by the rule in diff.cpp.
struct ProcessPair {
  std::string key;  // names from the root down, "sh/make/cc1plus"
  MatchedBy matched_by = MatchedBy::kStartOrder;
  DiffProcess a;
  DiffProcess b;
  Change peak_rss_bytes;
  Change cpu_ns;
};

// The processes of one key that found no twin in the other recording.
struct UnmatchedGroup {
  std::string key;
  int64_t max_peak_rss_bytes = 0;
  int64_t cpu_ns = 0;  // the sum over the group
  std::vector<DiffProcess> processes;  // in start order
};

struct DiffTotals {
  Change wall_ms;
  Change cpu_ns;               // the summary's figure: exact from the kernel when it can be
  Change peak_tree_rss_bytes;  // the summary's: the highest sum at one tick, or a process's own peak
  // Whether each side's peak memory is a process's own, above every tick's sum: the tree
  // held at least that much (it ended before a tick, or peaked between two).
  bool peak_tree_at_least_a = false;
  bool peak_tree_at_least_b = false;
  // The cgroup's exact peak, when both recordings have one.
  std::optional<Change> cgroup_peak_bytes;
  Change processes;
};

struct Diff {
  std::vector<std::string> command_a;
  std::vector<std::string> command_b;
  bool commands_differ = false;
  // False for a recording whose recorder was killed: it ends at its last commit.
  bool complete_a = true;
  bool complete_b = true;
  // Not complete because another canopy still writes it (Summary::still_recording).
  bool still_recording_a = false;
  bool still_recording_b = false;
  // How each side was recorded, where it moves the figures: the heap profiler loaded in
  // each process (its tables and time are the process's), and the sampling interval
  // (a longer one misses more of a peak).
  bool heap_profiled_a = false;
  bool heap_profiled_b = false;
  int64_t interval_ms_a = 0;
  int64_t interval_ms_b = 0;
  DiffTotals totals;
  // Largest memory growth first (ties: larger CPU growth first), shrinking last.
  std::vector<ProcessPair> pairs;
  // Indices into `pairs`, largest CPU growth first (ties: larger memory growth first).
  std::vector<size_t> by_cpu_growth;
  int64_t matched_by_cmdline = 0;
  int64_t matched_by_short_command = 0;
  int64_t matched_by_parent = 0;
  // Highest peak first: the new process that takes the most memory leads.
  std::vector<UnmatchedGroup> only_a;
  std::vector<UnmatchedGroup> only_b;
};

// Errors are the readers' (a damaged file met while reading), prefixed with the side:
// "recording B: cannot read 'b.canopy': ...".
Result<Diff> diff(const store::Reader& a, const store::Reader& b);

}  // namespace canopy::analyze
