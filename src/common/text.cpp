#include "common/text.h"

#include <string.h>  // sigabbrev_np

#include <cmath>
#include <cstdio>
#include <ctime>

namespace canopy {

namespace {

bool is_separator(char c) { return c == ' ' || c == '\t' || c == '\n'; }

}  // namespace

// A loop over the characters, not find_first_of: libstdc++ runs that as one memchr
// of the separator set per character, which made this the recorder's hottest
// function (every /proc file it parses goes through here).
std::string_view next_field(std::string_view& text) {
  size_t start = 0;
  while (start < text.size() && is_separator(text[start])) {
    ++start;
  }
  size_t end = start;
  while (end < text.size() && !is_separator(text[end])) {
    ++end;
  }
  std::string_view field = text.substr(start, end - start);
  text.remove_prefix(end);
  return field;
}

std::string count_of(int64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string format_bytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (std::fabs(value) >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char buf[32];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", value, kUnits[unit]);
  }
  return buf;
}

std::string format_signed_bytes(int64_t delta) {
  return (delta > 0 ? "+" : delta < 0 ? "-" : "") + format_bytes(std::llabs(delta));
}

std::string format_duration_ms(int64_t ms) {
  char buf[48];
  if (ms < 60'000) {
    std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ms) / 1000.0);
  } else if (ms < 3'600'000) {
    std::snprintf(buf, sizeof buf, "%lld m %04.1f s", static_cast<long long>(ms / 60'000),
                  static_cast<double>(ms % 60'000) / 1000.0);
  } else {
    std::snprintf(buf, sizeof buf, "%lld h %02lld m %02lld s", static_cast<long long>(ms / 3'600'000),
                  static_cast<long long>(ms / 60'000 % 60), static_cast<long long>(ms / 1000 % 60));
  }
  return buf;
}

std::string format_local_time_ms(int64_t epoch_ms) {
  std::time_t seconds = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm local{};
  ::localtime_r(&seconds, &local);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %z", &local);
  return buf;
}

std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return std::string("SIG") + (abbrev ? abbrev : "?");
}

std::string_view trim_spaces(std::string_view text, std::string_view blanks) {
  size_t first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) {
    return {};
  }
  size_t last = text.find_last_not_of(blanks);
  return text.substr(first, last - first + 1);
}

std::string path_base_name(std::string_view path) { return std::string(path.substr(path.rfind('/') + 1)); }

std::string listed_names(const std::set<std::string>& names) {
  std::string text;
  size_t n = 0;
  for (const std::string& name : names) {
    if (n++ == 10) {
      return text + ", ...";
    }
    text += (text.empty() ? "" : ", ") + name;
  }
  return text;
}

std::string hex_of(const unsigned char* bytes, size_t count) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * count);
  for (size_t i = 0; i < count; ++i) {
    hex += kDigits[bytes[i] >> 4];
    hex += kDigits[bytes[i] & 15];
  }
  return hex;
}

}  // namespace canopy
