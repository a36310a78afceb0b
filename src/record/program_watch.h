// record/: the program watch, which TreeSampler tells of each program the tree runs.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "probe/process_files.h"

namespace canopy::record {

// Told of each program the tree's processes run, while its files can still be read:
// record --heap asks of each whether its heap profiler could load into it
// (HeapCoverage). A process's programs come in order; the last one told is the one
// its row names.
class ProgramWatch {
 public:
  virtual ~ProgramWatch() = default;
  // `process_id` (`pid`) runs a program not told before: `files` are its own, for a
  // look now, or nullptr when it is known gone. `exec_ns`: its exec event's time
  // (CLOCK_MONOTONIC), 0 when unknown (first sight, or an exec a tick found).
  virtual void on_program(int64_t process_id, pid_t pid, probe::ProcessFiles* files, uint64_t exec_ns) = 0;
  // A fork, running its parent's program still. `forked_ns`: the fork's time, or a
  // moment after it (CLOCK_MONOTONIC); what the parent's program did after that is not
  // the fork's.
  virtual void on_fork(int64_t process_id, pid_t pid, int64_t parent_id, uint64_t forked_ns) = 0;
  // The exec event of the program told last came after that program was looked at:
  // it started then, or later.
  virtual void on_exec_time(int64_t process_id, uint64_t exec_ns) = 0;
  // The kernel's exit record says the process never exec'd: it ran its parent's
  // program, as forked, to its end (a child that ended before it could be looked at).
  virtual void on_never_execd(int64_t process_id, int64_t parent_id) = 0;
};

}  // namespace canopy::record
