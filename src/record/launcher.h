// Starts the recorded command. The child waits at a gate until the recorder is ready
// (its recording file created, named after the child's PID), so that sampling sees
// the command from its first instruction and nothing runs unrecorded.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/scoped_resource.h"
#include "record/exec_failure.h"

namespace canopy::record {

// What the command gets besides our environment and fds.
struct ChildSetup {
  std::vector<std::string> environment;  // "NAME=value", replacing any NAME we have
  int stdout_fd = -1;                    // becomes its fd 1 when >= 0
  int stderr_fd = -1;                    // becomes its fd 2 when >= 0
  // A cgroup v2 directory (O_PATH fd) to start the child in, with
  // clone3(CLONE_INTO_CGROUP): it is charged there from its first page. -1: fork.
  int cgroup_fd = -1;
  // Whether canopy was started with SIGPIPE or SIGXFSZ ignored. The recorder changes
  // both for itself; the command gets them as it would have without canopy.
  bool sigpipe_ignored = false;
  bool sigxfsz_ignored = false;
};

class Launch {
 public:
  // Forks the child, stopped at the gate. An error here is the recorder's own (fork).
  static Result<Launch> fork_gated(const std::vector<std::string>& argv, const ChildSetup& setup = {});
  Launch(Launch&&) = default;
  Launch& operator=(Launch&&) = default;
  ~Launch();

  pid_t pid() const { return pid_; }
  // Lets the child exec. Returns the failure when exec failed (the child is reaped).
  std::optional<ExecFailure> release();
  // Kills and reaps the child before it ever ran the command.
  void abort();

 private:
  Launch() = default;
  pid_t pid_ = -1;
  std::string command_;
  ScopedFd gate_;         // parent's write end: one byte opens it
  ScopedFd exec_errno_;   // parent's read end: EOF means exec succeeded
};

}  // namespace canopy::record
