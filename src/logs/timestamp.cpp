#include "logs/timestamp.h"

#include <limits>

namespace canopy::logs {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

// Reads past the end as '\0', which no rule accepts, so the parsers below need no
// bounds checks of their own. (A real '\0' in the line is rejected the same way.)
char at(std::string_view s, size_t pos) { return pos < s.size() ? s[pos] : '\0'; }

// Exactly `n` digits at `pos`, or -1.
int read_digits(std::string_view s, size_t pos, int n) {
  int value = 0;
  for (int i = 0; i < n; ++i) {
    char c = at(s, pos + i);
    if (!is_digit(c)) return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

// A timestamp ends at the end of the line or before something that cannot continue a
// number or a word: "10:15:30x" is not a time.
bool ends_word(std::string_view s, size_t pos) {
  return pos >= s.size() || !(is_digit(s[pos]) || is_alpha(s[pos]));
}

// After the timestamp: the ']' that closes a '[' and the spaces before the message.
size_t skip_separator(std::string_view s, size_t pos, bool bracketed) {
  if (bracketed && at(s, pos) == ']') ++pos;
  while (at(s, pos) == ' ' || at(s, pos) == '\t') ++pos;
  return pos;
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

bool is_leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

// ".5", ",123", ".123456789" at `pos`: 1 to 9 digits, kept to the millisecond. No
// fraction (millis 0) when `pos` holds no separator followed by a digit; false when
// there are more than 9 digits.
bool read_fraction(std::string_view s, size_t& pos, bool allow_comma, int& millis) {
  millis = 0;
  char sep = at(s, pos);
  if (!(sep == '.' || (allow_comma && sep == ',')) || !is_digit(at(s, pos + 1))) return true;
  size_t digits = 0;
  for (char c = at(s, pos + 1); is_digit(c); c = at(s, pos + 1 + digits)) {
    if (digits < 3) millis = millis * 10 + (c - '0');
    ++digits;
  }
  if (digits > 9) return false;
  for (size_t i = digits; i < 3; ++i) millis *= 10;
  pos += 1 + digits;
  return true;
}

struct TimeOfDay {
  int hour;
  int minute;
  int second;
  int millis;
};

// "10:15:30" with an optional fraction, advancing `pos` past it.
std::optional<TimeOfDay> read_time(std::string_view s, size_t& pos, bool allow_comma) {
  int hour = read_digits(s, pos, 2);
  int minute = read_digits(s, pos + 3, 2);
  int second = read_digits(s, pos + 6, 2);
  if (hour < 0 || at(s, pos + 2) != ':' || minute < 0 || at(s, pos + 5) != ':' || second < 0) {
    return std::nullopt;
  }
  if (hour > 23 || minute > 59 || second > 60) return std::nullopt;
  pos += 8;
  int millis = 0;
  if (!read_fraction(s, pos, allow_comma, millis)) return std::nullopt;
  if (second == 60) {
    // A leap second (23:59:60.5): the last ms of :59 keeps it after :59 and before the
    // next minute, which is all a log's order needs.
    second = 59;
    millis = 999;
  }
  return TimeOfDay{hour, minute, second, millis};
}

// Days since 1970-01-01 of a valid Gregorian date, and the year of such a day count
// (H. Hinnant's days_from_civil / civil_from_days). Here rather than cctz's civil
// arithmetic, whose normalisation of a day count was most of a syslog line's cost.
int64_t days_from_civil(int64_t year, int month, int day) {
  year -= month <= 2;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;                                // [0, 399]
  const int64_t day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

int64_t year_of_day(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t day_of_era = days - era * 146097;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t shifted_month = (5 * day_of_year + 2) / 153;  // 0 = March
  return year_of_era + era * 400 + (shifted_month >= 10);
}

int64_t utc_epoch_ms(int year, int month, int day, const TimeOfDay& t, int offset_seconds) {
  const int64_t seconds = days_from_civil(year, month, day) * 86400 + t.hour * 3600 +
                          t.minute * 60 + t.second - offset_seconds;
  return seconds * 1000 + t.millis;
}

// The zone after an ISO time: "Z", "+01:00", "+0100", "+01", "-05:30" attached, or
// " UTC", " GMT", " +0100", " +01:00" after one space (PostgreSQL's "%m", git's dates).
// Sets `offset_seconds` and advances `pos` when there is one; false for an attached
// sign that is not an offset ("10:15:30+1").
bool read_zone(std::string_view s, size_t& pos, std::optional<int>& offset_seconds) {
  char c = at(s, pos);
  if (c == 'Z') {
    offset_seconds = 0;
    pos += 1;
  } else if (c == '+' || c == '-') {
    auto offset = parse_leading_utc_offset(s.substr(pos));
    if (!offset) return false;
    offset_seconds = offset->seconds;
    pos += offset->length;
  } else if (c == ' ') {
    // Only spellings that cannot be the first word of a message: not "+12 items".
    std::string_view word = s.substr(pos + 1, 3);
    if ((word == "UTC" || word == "GMT") && ends_word(s, pos + 4)) {
      offset_seconds = 0;
      pos += 4;
    } else if (char sign = at(s, pos + 1); sign == '+' || sign == '-') {
      auto offset = parse_leading_utc_offset(s.substr(pos + 1));
      if (offset && offset->length >= 5 && ends_word(s, pos + 1 + offset->length)) {
        offset_seconds = offset->seconds;
        pos += 1 + offset->length;
      }
    }
  }
  return true;
}

// 2026-11-22T10:15:30, 2026-11-22 10:15:30,123, 2026-11-22T10:15:30.123456+01:00
std::optional<int64_t> parse_iso(std::string_view s, size_t& pos, const TimestampContext& context) {
  int year = read_digits(s, pos, 4);
  int month = read_digits(s, pos + 5, 2);
  int day = read_digits(s, pos + 8, 2);
  char sep = at(s, pos + 10);
  if (year < 0 || at(s, pos + 4) != '-' || month < 0 || at(s, pos + 7) != '-' || day < 0 ||
      (sep != 'T' && sep != ' ')) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) return std::nullopt;
  size_t p = pos + 11;
  auto time = read_time(s, p, /*allow_comma=*/true);
  if (!time) return std::nullopt;
  std::optional<int> offset_seconds;
  if (!read_zone(s, p, offset_seconds) || !ends_word(s, p)) return std::nullopt;
  pos = p;
  if (offset_seconds) return utc_epoch_ms(year, month, day, *time, *offset_seconds);
  const cctz::civil_second local(year, month, day, time->hour, time->minute, time->second);
  return context.zone->to_epoch_ms(local, time->millis, context.previous_ms);
}

// 1..12 for the English abbreviation at `pos`, else 0.
int read_month(std::string_view s, size_t pos) {
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::string_view word = s.substr(pos, 3);
  for (int i = 0; i < 12; ++i) {
    if (word == kMonths[i]) return i + 1;
  }
  return 0;
}

// Nov 22 10:15:30, Nov  2 10:15:30 (RFC 3164 pads the day with a space), Nov 2 10:15:30,
// Nov 22 10:15:30.123456.
std::optional<int64_t> parse_syslog(std::string_view s, size_t& pos,
                                    const TimestampContext& context) {
  int month = read_month(s, pos);
  if (month == 0 || at(s, pos + 3) != ' ') return std::nullopt;
  size_t p = pos + 4;
  const bool padded = at(s, p) == ' ';  // then the day is one digit
  if (padded) ++p;
  int day = read_digits(s, p, 1);
  if (day < 0) return std::nullopt;
  ++p;
  if (!padded && is_digit(at(s, p))) {
    day = day * 10 + (s[p] - '0');
    ++p;
  }
  if (at(s, p) != ' ') return std::nullopt;
  ++p;
  // 2000 is a leap year: Feb 29 passes here and is checked against each candidate year.
  if (day < 1 || day > days_in_month(2000, month)) return std::nullopt;
  auto time = read_time(s, p, /*allow_comma=*/false);
  if (!time || !ends_word(s, p)) return std::nullopt;

  // No year in the line: take the one that puts it nearest the recording's start, so a
  // recording begun at 23:59 on 31 Dec reads "Jan  1 00:00:05" as next year. The
  // reference's UTC year +-1 covers every zone's idea of that year. Reading the line as
  // UTC misplaces each candidate by the zone's offset (under a day), which can only
  // change the answer when two candidates are within two days of a tie: only then is the
  // runner-up converted too. One tz lookup per line instead of three.
  constexpr int64_t kTieMarginMs = 2 * 86'400'000;
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  const int64_t reference_ms = context.reference_ms;
  const auto distance_ms = [reference_ms](int64_t ms) {
    return ms > reference_ms ? ms - reference_ms : reference_ms - ms;
  };
  const int reference_year = static_cast<int>(year_of_day(floor_div(reference_ms, 86'400'000)));
  int best_year = 0;
  int runner_up_year = 0;
  int64_t best_distance_ms = kNone;
  int64_t runner_up_distance_ms = kNone;
  for (int year = reference_year - 1; year <= reference_year + 1; ++year) {
    if (day > days_in_month(year, month)) continue;
    int64_t d = distance_ms(utc_epoch_ms(year, month, day, *time, 0));
    if (d < best_distance_ms) {
      runner_up_year = best_year;
      runner_up_distance_ms = best_distance_ms;
      best_year = year;
      best_distance_ms = d;
    } else if (d < runner_up_distance_ms) {
      runner_up_year = year;
      runner_up_distance_ms = d;
    }
  }
  if (best_distance_ms == kNone) return std::nullopt;  // Feb 29, no leap year in reach
  const auto convert = [&](int year) {
    const cctz::civil_second local(year, month, day, time->hour, time->minute, time->second);
    return context.zone->to_epoch_ms(local, time->millis, context.previous_ms);
  };
  int64_t best_ms = convert(best_year);
  if (runner_up_distance_ms != kNone && runner_up_distance_ms - best_distance_ms < kTieMarginMs) {
    int64_t other_ms = convert(runner_up_year);
    if (distance_ms(other_ms) < distance_ms(best_ms)) best_ms = other_ms;
  }
  pos = p;
  return best_ms;
}

// 1643811426, 1643811426.123 (seconds) or 1643811426123 (ms): exactly 10 or 13 digits,
// so that "42 items" or a 12-digit id is never a time.
std::optional<LeadingTimestamp> parse_epoch(std::string_view s, size_t pos, bool bracketed,
                                            std::optional<TimestampForm> only) {
  if (s[pos] == '0') return std::nullopt;  // no epoch time of this length starts with 0
  size_t digits = 0;
  int64_t value = 0;
  for (char c = s[pos]; is_digit(c) && digits < 14; c = at(s, pos + digits)) {
    value = value * 10 + (c - '0');
    ++digits;
  }
  size_t p = pos + digits;
  int64_t epoch_ms = 0;
  TimestampForm form;
  if (digits == 10) {
    form = TimestampForm::kEpochSeconds;
    int millis = 0;
    if (!read_fraction(s, p, /*allow_comma=*/false, millis)) return std::nullopt;
    epoch_ms = value * 1000 + millis;
  } else if (digits == 13) {
    form = TimestampForm::kEpochMillis;
    epoch_ms = value;
  } else {
    return std::nullopt;
  }
  if (only && *only != form) return std::nullopt;
  // Stricter than ends_word: "1643811426.5.1" or "1643811426-7" are more likely ids or
  // versions than times.
  char next = at(s, p);
  if (!(p >= s.size() || is_space(next) || next == ',' || next == ':' ||
        (bracketed && next == ']'))) {
    return std::nullopt;
  }
  return LeadingTimestamp{epoch_ms, form, skip_separator(s, p, bracketed)};
}

bool may_start_month(char c) {
  return c == 'J' || c == 'F' || c == 'M' || c == 'A' || c == 'S' || c == 'O' || c == 'N' ||
         c == 'D';
}

}  // namespace

std::optional<LeadingTimestamp> parse_leading_timestamp(std::string_view line,
                                                        const TimestampContext& context,
                                                        std::optional<TimestampForm> only) {
  const bool bracketed = at(line, 0) == '[';
  size_t pos = bracketed ? 1 : 0;
  const char first = at(line, pos);
  if (is_digit(first)) {
    // A '-' after four digits can only be an ISO date; ten or thirteen digits cannot.
    if (at(line, pos + 4) != '-') return parse_epoch(line, pos, bracketed, only);
    if (only && *only != TimestampForm::kIso) return std::nullopt;
    auto ms = parse_iso(line, pos, context);
    if (!ms) return std::nullopt;
    return LeadingTimestamp{*ms, TimestampForm::kIso, skip_separator(line, pos, bracketed)};
  }
  if (may_start_month(first)) {
    if (only && *only != TimestampForm::kSyslog) return std::nullopt;
    auto ms = parse_syslog(line, pos, context);
    if (!ms) return std::nullopt;
    return LeadingTimestamp{*ms, TimestampForm::kSyslog, skip_separator(line, pos, bracketed)};
  }
  return std::nullopt;
}

}  // namespace canopy::logs
