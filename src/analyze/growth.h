// analyze/: leak or unbounded state? For each process that lived long enough to judge,
// the trend of its resident memory (a least-squares slope and how well a line fits),
// whether it only ever rose, and whether it came back down once the process went idle
// (its CPU stopped). "Grew 40 MiB/min for 12 min and never came back down while idle"
// is worth a look; "rose under load and returned" is a working set doing its job.
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

struct GrowthFinding {
  enum class Verdict {
    kSteady,    // rose along a line, never fell back, still up at the end: a leak?
    kHeld,      // rose and stayed up, but not along a line: a cache or state that stays
    kReturned,  // rose, then came back down most of the way
  };
  Verdict verdict = Verdict::kSteady;
  int64_t process_id = 0;
  int64_t pid = 0;
  std::string name;
  int64_t span_ms = 0;  // how long it was seen
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
  std::vector<GrowthFinding> findings;  // those whose memory rose significantly; largest rise first
};

// `interval_ms` is the recording's; `end_ms` its end (processes still running then are
// judged up to it).
Result<GrowthReport> analyze_growth(const store::Reader& reader, const std::vector<store::ProcessRow>& processes,
                                    int64_t interval_ms, int64_t end_ms);

}  // namespace canopy::analyze
