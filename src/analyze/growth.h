// analyze/: unbounded growth or state that is kept? For each process that lived long
// enough to judge, the trend of its resident memory (a least-squares slope and how well
// a line fits), whether it only ever rose, and whether it came back down once the
// process went idle (its CPU stopped). "Grew steadily 40 MiB/min for 12 min and still
// held it when the recording ended" is worth a look; "rose under load and returned" is
// a working set doing its job. A process that exited while still growing, or still
// working with what it had (a compiler), is no claim: the kernel frees it at the exit.
// Resident memory alone cannot say "leak"; that needs allocation stacks (DESIGN.md).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::analyze {

// No claim without enough samples: a process is judged only when it was seen for at
// least this long and over at least this many ticks.
inline constexpr int64_t kGrowthMinSpanMs = 3000;
inline constexpr int64_t kGrowthMinTicks = 30;
// Steady growth lasts at least this share of the life judged, start-up included.
inline constexpr double kGrowthSustainedShare = 0.5;
// A process that exited is claimed only when it held its memory idle, after its
// highest, for at least this share of its life before exiting.
inline constexpr double kGrowthIdleHoldShare = 0.1;

struct GrowthFinding {
  enum class Verdict {
    kSteady,    // rose along a line over half its life, never fell back, still up at the end
    kHeld,      // rose and stayed up, but not steadily: a cache or state that stays
    kReturned,  // rose, then came back down most of the way
  };
  // How its life ended in the recording, which decides whether memory that stayed up
  // counts as still held.
  enum class Ending {
    kRunning,  // still running when the recording ended
    kStopped,  // running when the recording stopped the tree (--timeout, --cpu-time): judged up to then
    kExited,   // exited on its own: held only if idle on it for kGrowthIdleHoldShare of its life
  };
  Verdict verdict = Verdict::kSteady;
  Ending ending = Ending::kRunning;
  int64_t process_id = 0;
  int64_t pid = 0;
  std::string name;
  int64_t span_ms = 0;  // how long it was seen (up to the stop, when the recording stopped it)
  int64_t ticks = 0;    // the ticks of its life the judgement rests on
  int64_t start_bytes = 0;
  int64_t max_bytes = 0;
  int64_t end_bytes = 0;
  // The growing part: from the end of start-up to where it first came within 1% of
  // its highest; the slope and fit are of that part.
  int64_t growth_ms = 0;
  double slope_bytes_per_min = 0;
  double r_squared = 0;  // of the linear fit, 1 for a perfect line
  bool monotonic = false;  // never fell more than 5% of its rise below its highest
  // Time it spent idle (under 1% of one core) after first reaching its highest.
  int64_t idle_after_max_ms = 0;
  bool idle_at_end = false;
};

struct GrowthReport {
  int64_t judged = 0;  // processes that lived long enough
  // Those whose memory rose significantly and that exited while still busy (growing, or
  // working with it): nothing is claimed of them.
  int64_t exited_while_busy = 0;
  // Those whose memory rose significantly and that still held it at the end, or gave it
  // back: steady first, then held, then returned; largest rise first within each.
  std::vector<GrowthFinding> findings;
};

// The findings of one command (process name) and verdict: how many, and the one with
// the largest rise, whose figures stand for the group.
struct GrowthGroup {
  const GrowthFinding* largest = nullptr;
  int64_t count = 0;
};

// In the findings' order (each group where its largest stands); points into `report`.
std::vector<GrowthGroup> group_by_command(const GrowthReport& report);

// `interval_ms` is the recording's; `end_ms` its end (processes still running then are
// judged up to it). The recording's meta `tree_stopped_ms`, when it stopped the tree,
// is where the processes it stopped are judged up to.
Result<GrowthReport> analyze_growth(const store::Reader& reader, const std::vector<store::ProcessRow>& processes,
                                    int64_t interval_ms, int64_t end_ms);

}  // namespace canopy::analyze
