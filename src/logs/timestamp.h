// The timestamp at the start of a line of a `lines` log, as ms since the epoch (UTC).
// It runs on every line of logs that may be gigabytes long, so it allocates nothing,
// uses no regex or locale, and gives up at the first character that cannot start one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "logs/local_zone.h"

namespace canopy::logs {

enum class TimestampForm {
  kIso,           // 2026-11-22T10:15:30.123+01:00, 2026-11-22 10:15:30,123
  kSyslog,        // Nov 22 10:15:30, Nov  2 10:15:30.123 (no year)
  kEpochSeconds,  // 1643811426, 1643811426.123
  kEpochMillis,   // 1643811426123
};

struct LeadingTimestamp {
  int64_t epoch_ms;
  TimestampForm form;
  // Bytes of the line taken by the timestamp and the separator after it (spaces/tabs,
  // and a closing ']' when it opened with '['), so line.substr(length) is the message.
  size_t length;
};

struct TimestampContext {
  const LocalZone* zone;               // for times without a zone; never null
  int64_t reference_ms;                // the recording's start: gives syslog times their year
  std::optional<int64_t> previous_ms;  // the previous line's time, for DST ambiguity
};

// The timestamp at the very start of `line`, or nullopt. When `only` is given, only
// that form is accepted (the importer locks onto the form of the first timestamped
// line, so a continuation line such as "1643811426 rows" inside a stack trace of an
// ISO log is not mistaken for a new entry).
//
// Any form may be wrapped in '[' ... ']'. A timestamp must end at the end of the line
// or before a character that cannot continue it: "1643811426abc" and
// "2026-11-22 10:15:30x" are not timestamps. Invalid dates ("2026-02-30") are not either.
std::optional<LeadingTimestamp> parse_leading_timestamp(
    std::string_view line, const TimestampContext& context,
    std::optional<TimestampForm> only = std::nullopt);

}  // namespace canopy::logs
