// Reading cgroup files: where this process sits in each hierarchy, where those are
// mounted, and the counters of a cgroup (flat "key value" files and single numbers).
// Pure parsers plus a kept-open file, as for /proc: a recorder reads them every tick.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/scoped_resource.h"

namespace canopy::probe {

// /proc/PID/cgroup: the path of the cgroup v2 line ("0::/a/b"), and of the v1
// hierarchy holding `controller` ("4:memory:/a/b").
std::optional<std::string> cgroup_v2_path(std::string_view proc_cgroup);
std::optional<std::string> cgroup_v1_path(std::string_view proc_cgroup, std::string_view controller);

// /proc/self/mounts: where the cgroup2 hierarchy is mounted, and the v1 hierarchy
// holding `controller` (its mount options name the controllers).
std::optional<std::string> cgroup_v2_mount(std::string_view mounts);
std::optional<std::string> cgroup_v1_mount(std::string_view mounts, std::string_view controller);

// The value of `key` in a flat keyed file: memory.events, cpu.stat, pids.events,
// memory.oom_control ("oom_kill 3").
std::optional<int64_t> flat_key_value(std::string_view text, std::string_view key);
// A file holding one number ("123\n"); "max" is nullopt.
std::optional<int64_t> single_value(std::string_view text);
// cgroup.procs: one PID per line.
std::vector<pid_t> pid_list(std::string_view text);

// A cgroup file kept open and re-read from its start.
class CgroupFile {
 public:
  CgroupFile() = default;
  explicit CgroupFile(const std::string& path);
  bool is_open() const { return static_cast<bool>(fd_); }
  std::optional<std::string> read() const;

 private:
  ScopedFd fd_;
};

// The whole of a small file, or nullopt.
std::optional<std::string> read_small_file(const std::string& path);

}  // namespace canopy::probe
