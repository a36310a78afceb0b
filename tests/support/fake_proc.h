// A /proc tree written in a temporary directory, for the sampler to read instead of
// the kernel's (SamplerOptions::proc_root), as below's TestProcfs does for its reader.
// What real processes show only by timing (a PID reused, an exec, a zombie, a process
// gone between two reads) becomes a state the test writes between two ticks.
//
// The files hold the kernel's formats, copied from /proc/PID of a sleeping process and
// of a zombie (Linux 6.x). Each write rewrites them in place, keeping their inodes, so
// a file the sampler keeps open reads the new text, as it does from the kernel.
//
// What it cannot imitate, and how it stands in:
// - A file kept open by the sampler fails with ESRCH once its process is reaped; an
//   unlinked regular file still reads its old text through a kept fd. So a vanished
//   process's files are emptied before they are removed: no parser accepts empty
//   text, so the sampler sees a failed read either way (it never looks at errno), and
//   a new open finds nothing (or, after reuse_pid, the new process), as with the kernel.
// - The kernel makes the text at each read; here it is what the test wrote last. The
//   sampler reads a process in full only once its schedstat moved (it ran): a test
//   that changes a process moves its run_ns too, as its running would
//   (become_zombie and exec do).
// - Only the files the sampler reads are there; task/TID holds statm, status and the
//   children list.
// - No permission checks: io and exe read for every process (the kernel hides them
//   from another user without CAP_SYS_PTRACE).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "probe/system.h"
#include "support/temp_dir.h"

namespace canopy::testing {

// The fake machine's page size and clock: stat and statm count in them.
inline constexpr int64_t kFakePageBytes = 4096;
inline constexpr int64_t kFakeClockTicksPerSecond = 100;

// A thread other than the leader, and the children it forked.
struct FakeThread {
  pid_t tid = 0;
  std::vector<pid_t> children{};
};

// One process as its /proc/PID files show it. The defaults are a sleeping `sleep`.
struct FakeProcess {
  pid_t pid = 0;
  pid_t ppid = 1;
  std::string name = "sleep";  // comm, and stat's second field: up to 15 bytes, any byte
  // 'Z': a zombie, whose memory, executable and arguments are gone. With other threads
  // still running, only the leader thread has exited (pthread_exit): its own files
  // show it as a zombie, while theirs (task/TID) show the process's memory.
  char state = 'S';
  int64_t start_ticks = 2504114;  // stat field 22: with the pid, the process's identity
  uint64_t start_code = 93869604798464;   // stat field 26: a new value after each exec
  uint64_t start_stack = 140726906187120;  // stat field 28
  int64_t user_ticks = 0;
  int64_t system_ticks = 0;
  int64_t minor_faults = 128;
  int64_t major_faults = 0;
  int64_t run_ns = 9586275;  // schedstat: the leader's time on CPU
  // statm, in pages: size resident shared (shared = file-backed + shmem).
  int64_t size_pages = 730;
  int64_t resident_pages = 434;
  int64_t shared_pages = 407;
  // status: what statm does not split or tell.
  int64_t shmem_kb = 0;
  int64_t swap_kb = 0;
  int64_t hwm_kb = 0;  // VmHWM: written as at least VmRSS, as the kernel keeps it
  // io, as it names them: rchar and wchar through syscalls, read_bytes and
  // write_bytes from and to storage.
  int64_t rchar = 6976;
  int64_t wchar = 0;
  int64_t read_bytes = 0;
  int64_t write_bytes = 0;
  std::string exe = "/usr/bin/sleep";
  std::vector<std::string> cmdline = {"sleep", "30"};
  std::vector<pid_t> children{};  // of the leader thread
  std::vector<FakeThread> other_threads{};  // stat's thread count is one more than these
};

// Exits, as far as the kernel goes before the parent reaps it: a zombie, after its
// last CPU (exiting takes some, and the sampler counts on that to notice an end).
void become_zombie(FakeProcess& p);
// Execs: the same PID and start time, a new image (the program and its stack mapped at
// new addresses), name, executable and arguments, after some CPU.
void exec(FakeProcess& p, const std::string& name, const std::string& exe, const std::vector<std::string>& cmdline);

// The machine-wide files the sampler reads.
struct FakeMachine {
  int64_t mem_total_kb = 8'040'112;
  int64_t mem_available_kb = 6'118'244;
  int64_t swap_total_kb = 2'097'148;
  int64_t swap_free_kb = 2'097'148;
  int64_t pgsteal_kswapd = 1'709'049;  // vmstat: pages the kernel reclaimed
};

class FakeProc {
 public:
  FakeProc();  // an empty tree, with the machine's meminfo and vmstat

  const std::string& root() const { return dir_.path(); }
  // The machine the files describe: its page size, clock and boot time (0, so that a
  // start time in ms is start_ticks * 10).
  static probe::HostInfo host();

  void write_machine(const FakeMachine& machine);
  // Creates the process's files, or rewrites them in place.
  void write(const FakeProcess& process);
  // Reaped: the files it had read nothing, a new open finds no /proc/PID.
  void vanish(pid_t pid);
  // The process with this PID was reaped and another one got the PID: the files of
  // the old one read nothing, a new open finds the new one.
  void reuse_pid(const FakeProcess& process);
  // One file of the process (a path within /proc/PID) reads nothing from now on, as
  // every file does once the process is reaped: a process gone between two reads.
  void fail_reads(pid_t pid, const std::string& file);

 private:
  std::string dir_of(pid_t pid) const { return dir_.path() + "/" + std::to_string(pid); }

  TempDir dir_;
};

}  // namespace canopy::testing
