// What the CPU profiler needs of processes that were running before it started
// (record --pid --cpu-profile): their threads, their descendants, and the executable
// mappings they already had, which the kernel reports only as they are made. Each read
// is of /proc at one moment: a process or thread that ends meanwhile is simply absent.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace canopy::probe {

// /proc/PID/task: every thread of the process, its leader first when alive.
std::vector<pid_t> read_thread_ids(pid_t pid, const std::string& proc_root = "/proc");

// Every descendant of `root` (not itself), parents before their children, from the
// children files of each thread (/proc/PID/task/TID/children).
std::vector<pid_t> read_descendants(pid_t root, const std::string& proc_root = "/proc");

// One executable mapping of /proc/PID/maps:
//   55d4c2a02000-55d4c2a07000 r-xp 00002000 08:01 1234    /usr/bin/cat
// Its path is everything after the inode column (it may hold spaces); a deleted file's
// ends in " (deleted)".
struct ExecutableMapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t file_offset = 0;
  std::string path;  // "" for anonymous memory; "[vdso]" and the like as the kernel names them
};
std::vector<ExecutableMapping> parse_executable_mappings(std::string_view maps_text);
std::optional<std::vector<ExecutableMapping>> read_executable_mappings(pid_t pid,
                                                                       const std::string& proc_root = "/proc");

}  // namespace canopy::probe
