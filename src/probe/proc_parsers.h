// probe/: reads /proc and turns its text into plain structs. Read-only; knows nothing
// of storage or the CLI. Parsers are pure functions of the text so that tests can feed
// them real samples (tests/fixtures/proc/). Each parser quotes the text it reads.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canopy::probe {

// /proc/PID/stat, e.g.
//   1169 (bash) S 1168 1169 1169 0 -1 4194560 3081 155420 0 21 0 3 300 49 20 0 1 0 4539 ...
// The name sits in parentheses and may itself hold spaces, ')' and newlines, so the
// fields are counted from the *last* ')'.
struct StatFields {
  pid_t pid = 0;
  std::string name;
  char state = '?';
  pid_t ppid = 0;
  uint32_t flags = 0;  // the kernel's PF_* flags: PF_KTHREAD marks a kernel thread
  int64_t minor_faults = 0;
  int64_t major_faults = 0;
  int64_t user_ticks = 0;
  int64_t system_ticks = 0;
  int64_t threads = 0;
  int64_t start_ticks = 0;  // since boot, in clock ticks: with the pid, the identity
  int64_t vm_size_bytes = 0;
  // Where the program's code and stack start: a new image after every exec, even one
  // that keeps the name. 0 when the kernel hides them (no ptrace access).
  uint64_t start_code = 0;
  uint64_t start_stack = 0;
};
std::optional<StatFields> parse_stat(std::string_view text);
// PF_KTHREAD (include/linux/sched.h): a kernel thread, which has no memory of its own.
inline constexpr uint32_t kStatFlagKernelThread = 0x00200000;

// /proc/PID/statm, in pages: "1251 997 755 193 0 270 0" = size resident shared text lib data dt.
// shared counts file-backed and shmem pages, so anon = resident - shared exactly.
struct StatmFields {
  int64_t size_pages = 0;
  int64_t resident_pages = 0;
  int64_t shared_pages = 0;
  bool operator==(const StatmFields&) const = default;
};
std::optional<StatmFields> parse_statm(std::string_view text);

// /proc/PID/schedstat: "30992332 1671237 83" = ns on CPU, ns waiting, timeslices.
// The first field is the leader thread's sum_exec_runtime: nanosecond exact.
std::optional<int64_t> parse_schedstat_run_ns(std::string_view text);

// /proc/PID/status lines we need, e.g. "RssAnon:\t     968 kB".
struct StatusFields {
  int64_t rss_anon_bytes = 0;
  int64_t rss_file_bytes = 0;
  int64_t rss_shmem_bytes = 0;
  int64_t swap_bytes = 0;
  int64_t hwm_bytes = 0;  // VmHWM: the kernel's exact peak resident size
};
std::optional<StatusFields> parse_status(std::string_view text);

// /proc/PID/io: "rchar: 269517156\nwchar: 7911326\n...read_bytes: 9957376\n..."
struct IoFields {
  int64_t read_bytes = 0;        // rchar: bytes read through syscalls (page cache too)
  int64_t write_bytes = 0;       // wchar
  int64_t disk_read_bytes = 0;   // read_bytes: what storage delivered
  int64_t disk_write_bytes = 0;  // write_bytes
};
std::optional<IoFields> parse_io(std::string_view text);

// /proc/PID/smaps_rollup: "Pss:  1827 kB", "Private_Clean: 500 kB", "Private_Dirty: 248 kB".
struct SmapsRollupFields {
  int64_t pss_bytes = 0;
  int64_t uss_bytes = 0;  // Private_Clean + Private_Dirty
};
std::optional<SmapsRollupFields> parse_smaps_rollup(std::string_view text);

// /proc/meminfo: "MemTotal:       24684084 kB", "MemAvailable: ...", "SwapTotal:", "SwapFree:".
struct MeminfoFields {
  int64_t mem_total_bytes = 0;
  int64_t mem_available_bytes = 0;
  int64_t swap_total_bytes = 0;
  int64_t swap_free_bytes = 0;
};
std::optional<MeminfoFields> parse_meminfo(std::string_view text);

// /proc/vmstat: the machine's counts of the kernel changing processes' resident memory
// while they may not be running: pages reclaimed (every "pgsteal_*" line) or swapped
// out ("pswpout"), huge pages collapsed ("thp_collapse_alloc"), OOM kills ("oom_kill").
// Only its changes mean anything. nullopt when none of the lines is there.
std::optional<int64_t> parse_vmstat_memory_moves(std::string_view text);

// /proc/PID/task/TID/children: "1869 1870 " (space separated, trailing space).
std::vector<pid_t> parse_children(std::string_view text);

// /proc/PID/cmdline: NUL-separated arguments, as a vector.
std::vector<std::string> parse_cmdline(std::string_view text);

}  // namespace canopy::probe
