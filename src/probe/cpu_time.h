// CPU time of a process in nanoseconds, from two kernel sources:
//  - /proc/PID/stat utime+stime: the whole thread group (dead threads included), but
//    rounded down to clock ticks (10 ms at CLK_TCK=100);
//  - /proc/PID/schedstat: sum_exec_runtime of the leader thread, exact to the ns.
// Both never exceed the true total, so their maximum is the best lower bound: exact
// for single-threaded processes (most of a build), tick-precise for the rest.
#pragma once

#include <cstdint>
#include <optional>

namespace canopy::probe {

struct CpuTimeNs {
  int64_t user_ns = 0;
  int64_t system_ns = 0;
};

// Splits the best total into user and system in the ratio of the tick counts, and
// keeps both monotonic against `previous` the way the kernel's cputime_adjust() does,
// so that rates derived from two samples are never negative.
CpuTimeNs split_cpu_time(int64_t user_ticks, int64_t system_ticks, int64_t ticks_per_second,
                         std::optional<int64_t> leader_run_ns, const CpuTimeNs& previous);

}  // namespace canopy::probe
