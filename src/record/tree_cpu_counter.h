// One counter of the CPU time of a whole set of processes (the command's cgroup): when
// it has not moved since the previous tick, none of them ran, so the sampler need not
// ask each one whether it did. An idle tree then costs a read or two per tick instead
// of one per process.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace canopy::record {

class TreeCpuCounter {
 public:
  virtual ~TreeCpuCounter() = default;
  // Cumulative, of every thread of every member, ended ones included; nullopt when
  // it cannot be read.
  virtual std::optional<int64_t> tree_cpu_ns() const = 0;
  // The processes (thread group leaders) the counter counts. A process moved out by
  // someone else runs uncounted, so the caller checks its own against this list.
  virtual std::vector<pid_t> tree_cpu_members() const = 0;
};

}  // namespace canopy::record
