// analyze/: the summary's memory growth, from the heap profile when the recording has
// one: the stacks judged leaks (heap_verdict.h) at the end of each process image,
// instead of the guess from resident memory alone (growth.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/growth.h"
#include "analyze/heap_history.h"
#include "analyze/heap_verdict.h"
#include "store/heap_rows.h"
#include "store/recording.h"

namespace canopy::analyze {

struct HeapLeak {
  int64_t pid = 0;
  std::string name;  // the process's, "?" when the recording has no process for it
  int64_t stack_id = 0;
  HeapVerdict verdict;
  // The allocating code, named by the caller (symbolizing is not analyze's): the
  // innermost frame of the program's own, "function (file:line)".
  std::string where = "";
};

struct HeapLeakReport {
  int64_t images = 0;          // process images profiled
  int64_t images_judged = 0;   // with a snapshot to judge at, and not `unjudged`
  int64_t images_leaking = 0;  // with one leak or more, among the judged
  std::vector<HeapLeak> leaks;  // the largest held first
  // Images with a snapshot and no leak whose "no leak" would say nothing: most of what
  // they held at their end was in stacks with too few sampled allocations or snapshots
  // to judge (a short process, a sparse sampling rate), which held between them at least
  // as many sampled allocations as one verdict needs. An image that held fewer is counted
  // judged: most short processes of a build hold a sample or two, and listing each would
  // bury the ones that hold memory. Each image's largest such stack, the largest first.
  std::vector<HeapLeak> unjudged = {};
  // The profile's "no leak" is of what it sees. These resident memory findings (growth.h)
  // still held what they rose to, in processes with no leak above whose heap in use rose
  // less than half as much: memory the profile cannot see (mmap called directly, an
  // arena, a runtime's own heap, a process it could not load into) or freed memory that
  // the allocator kept. In the order of the growth report.
  std::vector<GrowthFinding> growth_beyond = {};
};

// What the summary asks of the symbolizer, which analyze/ does not link (cli/ gives it).
class HeapStackReading {
 public:
  virtual ~HeapStackReading() = default;
  // The profile's stacks that read alike, for heap_histories.
  virtual HeapStackAliases stacks_that_read_alike(const store::HeapProfile& profile) = 0;
  // Names each leak's `where` (and each of HeapLeakReport::unjudged).
  virtual void name_leaks(const store::HeapProfile& profile, std::vector<HeapLeak>& leaks) = 0;
};

// From the profile's histories (heap_histories), which both of these read.
HeapLeakReport heap_leak_report(const std::vector<HeapImageHistory>& histories,
                                const std::vector<store::ProcessRow>& processes);

// The `growth_beyond` of `report`, from the resident memory findings.
std::vector<GrowthFinding> growth_beyond_heap(const GrowthReport& growth, const HeapLeakReport& report,
                                              const std::vector<HeapImageHistory>& histories,
                                              const std::vector<store::ProcessRow>& processes);

}  // namespace canopy::analyze
