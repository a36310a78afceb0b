// Why the command could not be run, said as precisely as a shell says it: execve's
// errno alone blames a script for its missing interpreter ("no such file") and a
// directory for its permissions.
#pragma once

#include <string>

namespace canopy::record {

// Exit statuses of `canopy record` when the command could not run, as the shell's.
inline constexpr int kExitNotFound = 127;
inline constexpr int kExitCannotExecute = 126;

struct ExecFailure {
  int exit_status;  // kExitNotFound or kExitCannotExecute
  std::string message;
};

// `command` as given (argv[0]: a path, or a name searched on PATH) and the errno with
// which exec failed.
ExecFailure exec_failure(const std::string& command, int error);

}  // namespace canopy::record
