// `canopy log add`: reads one log file into a recording's events, all or nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/result.h"
#include "logs/log_format.h"

namespace canopy::logs {

struct LogAddOptions {
  std::string recording;
  std::string file;
  std::optional<LogFormat> format;  // detected when absent
  std::string tz;                   // zone of naive times; default: the recording host's
  std::string time_field;           // jsonl
  std::string message_field;
  bool again = false;  // add it even if the recording holds a log with the same content
  std::function<void(int64_t bytes_done, int64_t bytes_total)> progress;
};

struct LogAddResult {
  LogFormat format = LogFormat::kLines;
  std::string zone;  // the zone naive times were read in
  int64_t events = 0;
  int64_t outside_span = 0;  // kept, but before the recording's start or after its end
  int64_t span_start_ms = 0;
  int64_t span_end_ms = 0;
  std::optional<int64_t> first_ms;
  std::optional<int64_t> last_ms;
  int64_t bytes = 0;
};

// Refuses a flag `format` has no use for, which would be ignored and the log read
// otherwise than asked: --time-field and --message-field but for jsonl, --tz for a
// format whose times carry their zone or none is needed (cutelooker, cmake-trace).
Status check_flags_fit_format(const LogAddOptions& options, LogFormat format);

// Detects the format unless given, checks the flags against it, then adds the log.
Result<LogAddResult> add_log(const LogAddOptions& options);

}  // namespace canopy::logs
