// `canopy record` without its terminal: records as asked and says how it ended. What
// to print of it (the command's status, the summary, budget verdicts) is the CLI's.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "record/options.h"

namespace canopy::record {

struct RecordOutcome {
  // canopy record's exit status: the command's, a limit's (see options.h), the shell's
  // 126 or 127 for a command that could not start, or kExitRecorderFailed.
  int exit_status = kExitRecorderFailed;
  // Why the recording could not start or the recorder failed; nothing when it did not.
  std::optional<Error> failure;
  // Run mode, once the command ended: its status as waitpid gave it.
  std::optional<int> command_wait_status;
  // Absolute; set only when the recording was written in full.
  std::string complete_recording;
};

// A problem that does not end the run, told as it happens: a write error stops the
// recording, but the command goes on.
using Warn = std::function<void(std::string_view message)>;

RecordOutcome record(const RecordOptions& options, const Warn& warn);

}  // namespace canopy::record
