// What `canopy record` was asked to do, after the CLI has parsed and checked it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace canopy::record {

inline constexpr int64_t kDefaultIntervalMs = 100;
// canopy's own failures (bad flag, unwritable output, ...): distinct from any status
// the command can give us through the shell's conventions (126, 127, 128+N).
inline constexpr int kExitRecorderFailed = 125;

struct RecordOptions {
  std::vector<std::string> command;  // run mode
  pid_t attach_pid = 0;              // attach mode when non-zero
  int64_t interval_ms = kDefaultIntervalMs;
  std::string output;  // empty: canopy-YYYYMMDD-HHMMSS-PID.canopy
  bool force = false;
  bool quiet = false;
  bool pss = false;
  int64_t pss_interval_ms = 1000;
  bool capture_output = false;  // store the command's stdout/stderr lines as events
  bool process_events = true;   // listen to the kernel's process events when permitted
};

// The interval from CANOPY_INTERVAL, else ONLOOKER_POLL_INTERVAL (for users coming
// from Onlooker), else the default. Error text when the variable holds no number.
struct IntervalDefault {
  int64_t interval_ms;
  std::string error;
};
IntervalDefault interval_from_environment();

// Records as asked and returns the exit status for `canopy record`.
int run_record(const RecordOptions& options);

}  // namespace canopy::record
