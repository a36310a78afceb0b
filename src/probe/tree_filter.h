// The tree's processes, known to the kernel, so that the events and exit records of
// every other process on the machine are dropped before they reach the recorder: a
// process started elsewhere then costs it nothing (no wakeup, no read).
//
// A bitmap by PID in a BPF array map, and socket filters (eBPF: tree_filter.bpf.c,
// loaded with libbpf) on the process events' and the exit records' sockets that read
// it. The filter on the process events keeps the bitmap itself, in the kernel, at each
// fork as it happens: a child's bit is set when its parent's is, and cleared otherwise
// (its PID reused outside the tree). So a child is in the tree before it can run, and
// its own first fork passes even when the recorder has read none of this yet. A PID's
// bit outlives its process until the PID is reused, so the exits and exit records of a
// process's last threads, which can follow its leader's exit, still pass.
//
// Needs CAP_BPF (root, usually; kernel.unprivileged_bpf_disabled) and Linux 5.12 (atomic
// bit operations in BPF).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>

#include "common/result.h"

struct tree_filter_bpf;  // the skeleton bpftool generates (tree_filter.skel.h)

namespace canopy::probe {

class TreeFilter {
 public:
  // An empty set, the recorder itself in it: its fork of the command puts the command
  // in too. One line saying why on failure.
  static Result<TreeFilter> create();
  TreeFilter(TreeFilter&& other) noexcept;
  TreeFilter& operator=(TreeFilter&&) = delete;
  ~TreeFilter();

  // From now on the socket (a ProcEventSocket's) gets the forks, execs and exits of the
  // set's processes only: not threads' forks, nor the kinds of event canopy does not use
  // (uid, gid, sid, comm, ptrace, coredump). Events queued already stay.
  Status filter_process_events(int fd) const;
  // The same for a TaskExitListener's socket, whose generic netlink family is `family`:
  // the set's exit records only (replies and errors pass).
  Status filter_exit_records(int fd, int family);

  // Puts `pid` in the set.
  void admit(pid_t pid);
  // Puts `root` and every process now under it in the set, each before its children
  // are read: a child forked meanwhile is either in that list or admitted by its fork.
  void admit_tree(pid_t root);
  bool admitted(pid_t pid) const;

  // What the filters dropped so far.
  int64_t events_dropped() const;
  int64_t exit_records_dropped() const;

 private:
  struct DestroySkeleton {
    void operator()(tree_filter_bpf* skeleton) const;
  };
  using Skeleton = std::unique_ptr<tree_filter_bpf, DestroySkeleton>;
  TreeFilter(Skeleton skeleton, uint64_t* words, size_t mapped_bytes, int64_t pid_limit);
  Skeleton skeleton_;  // the two filters, the bitmap's map and the counters
  uint64_t* words_;  // the bitmap, shared with the kernel (mmap)
  size_t mapped_bytes_;
  int64_t pid_limit_;  // PIDs from here on are not in the bitmap: the filters let them pass
};

}  // namespace canopy::probe
