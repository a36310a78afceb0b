// The limits that hold per process: niceness, CPU affinity and rlimits, set on the
// gated command before it runs (its children inherit them). They stand in for the
// cgroup's tree-wide limits where canopy cannot create a cgroup: RLIMIT_CPU is each
// process's own CPU time, RLIMIT_NPROC counts the user's processes machine-wide, and
// RLIMIT_AS caps address space, not resident memory.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "record/options.h"

namespace canopy::record {

struct ProcessLimits {
  std::optional<int> nice;
  std::vector<int> cpus;  // empty: as inherited
  std::optional<int64_t> cpu_time_ms;           // RLIMIT_CPU (whole seconds, rounded up)
  std::optional<int64_t> max_processes;         // RLIMIT_NPROC
  std::optional<int64_t> address_space_bytes;   // RLIMIT_AS
};

// The per-process stand-ins for `limits` when the command runs without a cgroup.
// Limits with no stand-in (--cpu-limit, --swap-limit) are an error saying why there
// is no cgroup (`no_cgroup_reason`).
Result<ProcessLimits> process_limits_without_cgroup(const ResourceLimits& limits,
                                                    const std::string& no_cgroup_reason);

// With a cgroup, only what holds per process anyway: niceness and affinity.
Result<ProcessLimits> process_limits_with_cgroup(const ResourceLimits& limits);

// "0,2-3" into {0, 2, 3}; the error names the list and what is wrong with it.
Result<std::vector<int>> parse_cpu_list(std::string_view list);

// Applies `limits` to `pid` (a gated child of ours). The error names the limit.
Status apply_process_limits(pid_t pid, const ProcessLimits& limits);

}  // namespace canopy::record
