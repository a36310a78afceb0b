// The kernel's process events (the netlink process connector): a message for every
// fork, exec and exit on the machine, as it happens, with a nanosecond timestamp. With
// them the recorder sees a process that lived a millisecond, and the exact time and
// status of every exit. Older kernels let only CAP_NET_ADMIN (root, usually) listen,
// recent ones (6.18 here) any user; when refused, open() says why and the recorder
// falls back to polling.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>

#include "common/result.h"
#include "common/scoped_resource.h"
#include "probe/netlink_batch.h"

namespace canopy::probe {

struct ProcEvent {
  enum class Kind { kFork, kExec, kExit };
  Kind kind = Kind::kFork;
  uint64_t monotonic_ns = 0;  // CLOCK_MONOTONIC
  pid_t pid = 0;              // the process (fork: the new one)
  pid_t parent = 0;           // fork: the process that forked
  int wait_status = 0;        // exit: as waitpid reports it
};

class ProcEventSocket {
 public:
  // Subscribes to the events. Fails with one line saying why (most often: not
  // permitted).
  static Result<ProcEventSocket> open();

  int fd() const { return fd_.get(); }

  // Has the kernel drop, before they reach the socket, the events drain() would pass
  // over: threads' forks, and uid, gid, sid, comm, ptrace and coredump events. A
  // classic BPF filter, open to any user; it cannot tell the tree's processes from the
  // machine's (TreeFilter can, where permitted).
  Status drop_unused_kinds();

  // Hands every queued event of a process (threads' forks and exits are left out) to
  // `on_event`, without blocking. The kernel drops events when the socket's buffer is
  // full: each time, lost() grows by one and the caller has to poll for what it missed.
  void drain(const std::function<void(const ProcEvent&)>& on_event);
  int64_t lost() const { return lost_; }
  // Exit events drained so far, of threads too: each follows its task's taskstats
  // exit record, so a reader of those knows when one is due.
  int64_t exits_heard() const { return exits_heard_; }
  // Messages read from the socket, of any kind: what reached the recorder.
  int64_t received() const { return received_; }

 private:
  explicit ProcEventSocket(ScopedFd fd) : fd_(std::move(fd)) {}
  ScopedFd fd_;
  // An event's datagram is under 100 bytes; a burst's come 32 to a call.
  NetlinkBatchReceiver receiver_{32, 256};
  int64_t lost_ = 0;
  int64_t exits_heard_ = 0;
  int64_t received_ = 0;
};

}  // namespace canopy::probe
