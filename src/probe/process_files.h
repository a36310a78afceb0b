// One process's /proc files, opened once and read with pread on every tick.
//
// Why kept open: a /proc/PID file pins the process it was opened for. Once that process
// is gone, reads fail with ESRCH, so a kept-open file can never read a process that
// later reuses the PID, and each tick costs one pread per file instead of
// open+read+close (measured in bench/). All files are opened through one /proc/PID
// directory fd, so they all belong to the same process instance.
//
// Only the directory and stat are opened up front; each other file on its first read.
// Most processes of a build live a few milliseconds: one seen at its fork and gone
// before the next tick never pays for the files it was never read through.
#pragma once

#include <sys/types.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/scoped_resource.h"
#include "probe/proc_parsers.h"
#include "probe/program_start.h"

namespace canopy::probe {

class ProcessFiles {
 public:
  // nullopt when the process is gone (or /proc/PID cannot be opened at all).
  static std::optional<ProcessFiles> open(pid_t pid, const std::string& proc_root = "/proc");

  pid_t pid() const { return pid_; }

  // Each read returns nullopt when the process has gone (or, for the optional files,
  // when the kernel or permissions do not offer it).
  std::optional<StatFields> read_stat();
  std::optional<StatmFields> read_statm();
  // Whether the kernel offers the file (CONFIG_SCHED_INFO; io needs the same user or
  // CAP_SYS_PTRACE): false too when the process has gone before its first use.
  bool has_schedstat() { return kept(schedstat_) >= 0; }
  std::optional<int64_t> read_run_ns();
  std::optional<StatusFields> read_status();
  bool has_io() { return kept(io_) >= 0; }
  std::optional<IoFields> read_io();
  std::optional<SmapsRollupFields> read_smaps_rollup();

  // Children of every thread (a child belongs to the thread that forked it).
  std::vector<pid_t> read_children(int64_t threads);
  // After the leader thread has exited (pthread_exit) while others run on, the
  // process's own statm and status show no memory (stat shows a zombie): those of a
  // live thread show the memory the threads share. nullopt when no thread is left
  // with memory. Opened on each read: the rare case, and any thread may be next to go.
  std::optional<StatmFields> read_live_thread_statm();
  std::optional<StatusFields> read_live_thread_status();
  std::string read_exe();
  std::string read_cwd();  // "" when unreadable (another user's process, or gone)
  std::vector<std::string> read_cmdline();
  // What its program started with (program_start.cpp): read once per program, so
  // opened on each read and not kept.
  AuxvRead read_auxv();
  // The values of `names` in its program's environment, read only as far as the last
  // of them. An empty environment reads as no values, and so does one of a process
  // whose memory has just gone: kRead says nothing of whether it still lives.
  EnvironmentRead read_environment(std::span<const std::string_view> names);

 private:
  // A file of the directory, opened on its first use and kept; one failed open is not
  // retried.
  struct KeptFile {
    explicit KeptFile(const char* file_name) : name(file_name) {}
    const char* name;  // within the directory; the children list's is made on use
    ScopedFd fd;
    bool tried = false;
  };
  explicit ProcessFiles(pid_t pid) : pid_(pid) {}
  // The file's fd, opening it on first use; -1 when it cannot be opened.
  int kept(KeptFile& file);
  // `file` of the first thread other than the leader that `parse` accepts.
  template <typename Fields>
  std::optional<Fields> read_live_thread(const char* file, std::optional<Fields> (*parse)(std::string_view));

  pid_t pid_;
  ScopedFd dir_;
  ScopedFd stat_;
  KeptFile statm_{"statm"};
  KeptFile schedstat_{"schedstat"};
  KeptFile status_{"status"};  // read on a new peak or shrink, and once a second
  KeptFile io_{"io"};
  KeptFile leader_children_{nullptr};  // task/PID/children
  KeptFile smaps_rollup_{"smaps_rollup"};  // only --pss reads it
};

// The value of `name` in the environment process `pid` was started with
// (/proc/PID/environ: "NAME=value\0NAME=value\0..."); nullopt when it has none, the
// process is gone, or it is another user's.
std::optional<std::string> read_environment_variable(pid_t pid, std::string_view name,
                                                     const std::string& proc_root = "/proc");

// Reads a whole file from a kept-open fd with pread from offset 0. Returns nullopt on
// error (errno tells why: ESRCH when the process is gone).
std::optional<std::string_view> pread_all(int fd, std::string& buffer);

}  // namespace canopy::probe
