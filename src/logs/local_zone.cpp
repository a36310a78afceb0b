#include "logs/local_zone.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace canopy::logs {
namespace {

int two_digits(std::string_view text, size_t pos) {
  if (pos + 2 > text.size()) return -1;
  char a = text[pos];
  char b = text[pos + 1];
  if (a < '0' || a > '9' || b < '0' || b > '9') return -1;
  return (a - '0') * 10 + (b - '0');
}

std::string format_offset(int seconds) {
  char buf[16];
  int magnitude = seconds < 0 ? -seconds : seconds;
  std::snprintf(buf, sizeof buf, "%c%02d:%02d", seconds < 0 ? '-' : '+', magnitude / 3600,
                magnitude / 60 % 60);
  return buf;
}

// Where cctz looks for zone files: its fallback source reads ${TZDIR}, else this.
std::string tz_database_dir() {
  const char* dir = std::getenv("TZDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/usr/share/zoneinfo";
}

int64_t to_ms(const cctz::time_point<cctz::seconds>& t, int millis) {
  return static_cast<int64_t>(t.time_since_epoch().count()) * 1000 + millis;
}

}  // namespace

std::optional<UtcOffset> parse_leading_utc_offset(std::string_view text) {
  if (text.empty() || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  int hours = two_digits(text, 1);
  if (hours < 0 || hours > 23) return std::nullopt;
  int minutes = 0;
  size_t length = 3;
  if (length < text.size() && text[length] == ':') {
    // "+01:" commits to minutes: "+01:0" is a broken offset, not "+01" and a ':'.
    minutes = two_digits(text, length + 1);
    if (minutes < 0) return std::nullopt;
    length += 3;
  } else if (int m = two_digits(text, length); m >= 0) {
    minutes = m;
    length += 2;
  }
  if (minutes > 59) return std::nullopt;
  int seconds = hours * 3600 + minutes * 60;
  return UtcOffset{text[0] == '-' ? -seconds : seconds, length};
}

Result<LocalZone> LocalZone::load(std::string_view name) {
  if (name.empty()) {
    return Error{"empty time zone name: expected UTC, an IANA name such as Europe/Berlin, "
                 "or an offset such as +01:00"};
  }
  if (name == "UTC") return LocalZone(std::string(name), cctz::utc_time_zone());
  if (name[0] == '+' || name[0] == '-') {
    auto offset = parse_leading_utc_offset(name);
    if (!offset || offset->length != name.size()) {
      return Error{"invalid time zone offset '" + std::string(name) +
                   "': expected +HH:MM, +HHMM or +HH (hours 0-23)"};
    }
    return LocalZone(format_offset(offset->seconds),
                     cctz::fixed_time_zone(cctz::seconds(offset->seconds)));
  }
  cctz::time_zone zone;
  // cctz answers an unknown name with false *and* UTC in `zone`: ignoring the false would
  // read every time of the log as UTC without a word.
  if (!cctz::load_time_zone(std::string(name), &zone)) {
    return Error{"unknown time zone '" + std::string(name) + "': not in the tz database (" +
                 tz_database_dir() + ")"};
  }
  return LocalZone(std::string(name), zone);
}

int64_t LocalZone::to_epoch_ms(const cctz::civil_second& local, int millis,
                               std::optional<int64_t> not_before_ms) const {
  const cctz::time_zone::civil_lookup found = zone_.lookup(local);
  switch (found.kind) {
    case cctz::time_zone::civil_lookup::UNIQUE:
      return to_ms(found.pre, millis);
    case cctz::time_zone::civil_lookup::SKIPPED:
      // 02:30 on a spring-forward day never showed on a clock that had moved on, so it
      // came from one that had not: the offset before the transition.
      return to_ms(found.pre, millis);
    case cctz::time_zone::civil_lookup::REPEATED: {
      // pre is the first pass through the repeated hour, post the second.
      int64_t first_ms = to_ms(found.pre, millis);
      if (!not_before_ms || first_ms >= *not_before_ms) return first_ms;
      return to_ms(found.post, millis);
    }
  }
  return to_ms(found.pre, millis);
}

}  // namespace canopy::logs
