// The time zone that log lines without one were written in (`--tz`), and the rules for
// turning their naive local times into instants: cctz does the tz database, this file
// decides what a skipped or repeated local time means for a log that runs forward.
#pragma once

#include <cctz/civil_time.h>
#include <cctz/time_zone.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/result.h"

namespace canopy::logs {

// A UTC offset at the very start of `text`: "+01:00", "+0100", "+01", "-05:30".
// Shared by LocalZone::load and the zone suffix of ISO timestamps, so that both accept
// the same spellings. Hours 0-23, minutes 0-59.
struct UtcOffset {
  int seconds;    // east of UTC
  size_t length;  // bytes of `text` taken
};
std::optional<UtcOffset> parse_leading_utc_offset(std::string_view text);

class LocalZone {
 public:
  // "UTC", an IANA name ("Europe/Berlin"), or a fixed offset ("+01:00", "-0530", "+01").
  static Result<LocalZone> load(std::string_view name);

  // The instant of a naive local time, in ms since the epoch. A time skipped by a
  // spring-forward gap is read with the offset before the gap (a clock not yet moved
  // forward). A time repeated by a fall-back is the earlier instant unless that is
  // before `not_before_ms` (the previous line's time) and the later one is not: a log
  // written across the repeated hour keeps its order.
  int64_t to_epoch_ms(const cctz::civil_second& local, int millis,
                      std::optional<int64_t> not_before_ms) const;

  // As given, except fixed offsets, which are spelled "+HH:MM".
  const std::string& name() const { return name_; }

 private:
  LocalZone(std::string name, cctz::time_zone zone) : name_(std::move(name)), zone_(zone) {}

  std::string name_;
  cctz::time_zone zone_;
};

}  // namespace canopy::logs
