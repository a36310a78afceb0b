// The kernel's taskstats exit records (generic netlink, TASKSTATS): for every task that
// exits on the listened CPUs, its name, exit status, peak resident memory, CPU times
// and I/O, final and exact. With them a process that lived too briefly to be sampled
// still gets its figures. Listening needs CAP_NET_ADMIN (root, usually).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "probe/netlink_batch.h"

struct nl_sock;

namespace canopy::probe {

// One exiting thread's record. A process's figures are its threads' together: CPU
// and I/O add up; the peak is the process's (threads share it).
struct TaskExit {
  pid_t tid = 0;
  pid_t tgid = 0;             // the process
  std::string name;           // comm after the last exec
  // The task never exec'd (the kernel's AFORK flag). For a process, its leader's
  // record says: it ran, to its end, the program it was forked in. Other threads
  // carry the flag whatever the process ran.
  bool forked_without_exec = false;
  int wait_status = 0;        // as waitpid reports it (the leader's is the process's)
  int64_t peak_rss_bytes = 0;  // hiwater_rss
  int64_t cpu_user_ns = 0;
  int64_t cpu_system_ns = 0;
  // The CPU above is the scheduler's runtime, exact to the ns, split in the ratio of
  // the clock ticks. Without the kernel's delay accounting (CONFIG_TASK_DELAY_ACCT) a
  // record has the ticks alone (10 ms each, unscaled): 0 for most brief processes.
  bool cpu_from_ticks = false;
  // The whole process's runtime, every thread's since it began, in the record of its
  // last thread when it had more than one (the kernel's thread group aggregate): exact
  // where the threads' own records are not all at hand.
  std::optional<int64_t> group_cpu_ns;
  int64_t minor_faults = 0;
  int64_t major_faults = 0;
  int64_t read_bytes = 0;  // through syscalls (rchar, wchar)
  int64_t write_bytes = 0;
  int64_t disk_read_bytes = 0;  // from and to storage
  int64_t disk_write_bytes = 0;
};

class TaskExitListener {
 public:
  // Registers for the exits on every CPU. One line saying why on failure.
  static Result<TaskExitListener> open(int64_t cpu_count);
  TaskExitListener(TaskExitListener&&) noexcept;
  ~TaskExitListener();

  int fd() const;
  // The generic netlink family the records come from (TASKSTATS's id on this kernel).
  int family() const;
  // Hands every queued record to `on_exit`, without blocking. Records the kernel
  // dropped (a full socket buffer) are counted in lost().
  void drain(const std::function<void(const TaskExit&)>& on_exit);
  int64_t lost() const { return lost_; }

 private:
  struct Socket;
  explicit TaskExitListener(std::unique_ptr<Socket> socket, std::string cpumask);
  std::unique_ptr<Socket> socket_;
  std::string cpumask_;
  // One exit record is about 600 bytes; a process's last thread's carries its
  // thread group's too.
  NetlinkBatchReceiver receiver_{8, 4096};
  int64_t lost_ = 0;
};

}  // namespace canopy::probe
