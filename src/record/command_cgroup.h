// The command's own cgroup: the whole tree's exact memory (shared pages once) and CPU
// on every tick, its limits enforced by the kernel, and a way to stop every process in
// it, daemons included. cgroup v2 where a delegated subtree offers the memory
// controller (the command then starts inside it with clone3), else cgroup v1 where its
// hierarchies are writable (the gated command is moved in before it runs).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/scoped_resource.h"
#include "probe/cgroup_files.h"
#include "record/options.h"
#include "record/tree_cpu_counter.h"

namespace canopy::record {

struct CgroupReading {
  int64_t memory_bytes = 0;
  std::optional<int64_t> memory_peak_bytes;  // v2 memory.peak (5.19+); v1 max_usage_in_bytes
  std::optional<int64_t> cpu_ns;             // cumulative
  int64_t oom_kills = 0;                     // cumulative
  int64_t memory_limit_hits = 0;             // v2 memory.events max; v1 failcnt
  int64_t pids_limit_hits = 0;               // forks refused by pids.max
};

class CommandCgroup : public TreeCpuCounter {
 public:
  // Makes `canopy-PID` with `limits` (memory, swap, CPU share, process count) set.
  // The error says why for each version. Without --swap-limit, a memory limit allows
  // no swap: "cannot use more than 300 MB" means memory, not memory plus disk.
  static Result<CommandCgroup> create(const ResourceLimits& limits);
  // The same, given the text of /proc/self/mounts and /proc/self/cgroup (tests point
  // it at a directory laid out as a delegated cgroup v2 subtree).
  static Result<CommandCgroup> create(const ResourceLimits& limits, const std::string& mounts,
                                      const std::string& self);
  CommandCgroup(CommandCgroup&&) noexcept = default;
  CommandCgroup& operator=(CommandCgroup&&) = delete;
  // Stops what is still in it when the run had limits (or moves it out to our own
  // cgroup when not: an unlimited run's daemons outlive it, as under `time`), then
  // removes the directories.
  ~CommandCgroup() override;

  int version() const { return version_; }
  const std::string& description() const { return description_; }
  // v2: the directory, for clone3(CLONE_INTO_CGROUP); -1 on v1.
  int clone_fd() const { return clone_fd_.get(); }

  // Moves `pid` in (v1: the gated command, before it runs).
  Status add(pid_t pid);
  // memory.current alone; nullopt when it cannot be read. It moves without the tree
  // running: the kernel reclaims the tree's page cache.
  std::optional<int64_t> memory_bytes() const;
  // The figures that move only when a process of the tree runs (it charges the memory
  // that raises the peak, trips a limit, or gets OOM-killed), save for rare charges
  // made on its behalf: the peak, OOM kills and limit hits, into `reading`.
  void read_counters(CgroupReading& reading) const;
  std::vector<pid_t> members() const;
  // The CPU counter alone (v2 cpu.stat, v1 cpuacct.usage), and the members of the
  // hierarchy that keeps it.
  std::optional<int64_t> tree_cpu_ns() const override;
  std::vector<pid_t> tree_cpu_members() const override;
  void signal_all(int signal) const;
  // SIGKILL to every member with none able to fork away (frozen first, or cgroup.kill),
  // until it is empty or two seconds have passed.
  void kill_all() const;

 private:
  CommandCgroup() = default;
  static Result<CommandCgroup> create_v2(const ResourceLimits& limits, const std::string& mounts,
                                         const std::string& self);
  static Result<CommandCgroup> create_v1(const ResourceLimits& limits, const std::string& mounts,
                                         const std::string& self);
  void open_counters(const ResourceLimits& limits);
  void release_members() const;

  struct Directory {
    std::string path;    // ours
    std::string parent;  // where members go back on release
  };
  int version_ = 0;
  std::string description_;
  std::vector<Directory> directories_;  // v1: one per hierarchy, memory first
  std::string cpu_directory_;           // v1: cpuacct's; v2: the one
  std::string freezer_directory_;       // v1, when mounted
  bool limited_ = false;
  ScopedFd clone_fd_;
  probe::CgroupFile memory_current_, memory_peak_, cpu_usage_, cpu_members_, memory_events_, memory_failcnt_,
      memsw_failcnt_, pids_events_;
};

}  // namespace canopy::record
