// analyze/: budgets for CI. `--max-peak 2G` and `--max-cpu 10m` hold the whole tree to
// a peak memory and a CPU time; `--max-peak cc1plus=1G` holds every process of that
// name to its own. A budget over is named with the process that pushed it over.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/summary.h"
#include "common/result.h"
#include "store/reader.h"

namespace canopy::analyze {

struct Budget {
  enum class Kind { kPeakMemory, kCpuTime };
  Kind kind = Kind::kPeakMemory;
  // Empty: the whole tree. Otherwise each process of this name (its name in /proc,
  // after its last exec), on its own.
  std::string command;
  int64_t limit = 0;  // bytes or nanoseconds
  std::string flag;   // as the user wrote it, for messages: "--max-peak cc1plus=1G"
};

// The process a verdict names: the one that pushed the tree over (or the largest of
// the processes of a per-command budget).
struct BudgetCulprit {
  int64_t process_id = 0;
  int64_t pid = 0;
  std::string name;
  std::vector<std::string> cmdline = {};  // what tells it from others of its name
  int64_t value = 0;  // its own peak (bytes) or CPU time (ns)
  // Tree peak only: how much it grew at the tick the tree went over.
  std::optional<int64_t> growth_bytes;
};

struct BudgetVerdict {
  Budget budget;
  int64_t used = 0;  // the tree's peak or CPU, or the highest of the named processes
  bool over = false;
  // When the tree first went over, since the recording's start (tree budgets only,
  // and only when the per-tick figures show it).
  std::optional<int64_t> over_at_ms;
  // The number of processes of that name over their budget (per-command budgets), and
  // how many there were in all (0: no such process ran, which is worth saying).
  int64_t processes_over = 0;
  int64_t processes_named = 0;
  std::optional<BudgetCulprit> culprit;
};

// Checks each budget against the recording. The tree's peak memory is the summary's
// (resident memory summed over the tree at a tick, the figure `canopy report` prints);
// its CPU time is the summary's too (exact from the kernel in run mode).
Result<std::vector<BudgetVerdict>> check_budgets(const store::Reader& reader, const Summary& summary,
                                                 const std::vector<Budget>& budgets);

}  // namespace canopy::analyze
