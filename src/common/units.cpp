#include "common/units.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

namespace canopy {
namespace {

struct Unit {
  std::string_view name;
  int64_t factor;
};

constexpr std::array<Unit, 4> kDurationUnits = {{{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}}};

constexpr int64_t kKiB = 1024;
// Each letter alone, with "b", with "i" and with "ib": all powers of 1024.
constexpr std::array<Unit, 7> kSizeLetters = {{{"", 1},
                                               {"k", kKiB},
                                               {"m", kKiB * kKiB},
                                               {"g", kKiB * kKiB * kKiB},
                                               {"t", kKiB * kKiB * kKiB * kKiB},
                                               {"p", kKiB * kKiB * kKiB * kKiB * kKiB},
                                               {"e", kKiB * kKiB * kKiB * kKiB * kKiB * kKiB}}};

std::optional<int64_t> size_factor(std::string_view unit) {
  std::string lower;
  for (char c : unit) {
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (const Unit& letter : kSizeLetters) {
    std::string name(letter.name);
    if (lower == name || lower == name + "b" || (!name.empty() && (lower == name + "i" || lower == name + "ib"))) {
      return letter.factor;
    }
  }
  return std::nullopt;
}

std::optional<int64_t> duration_factor(std::string_view unit) {
  for (const Unit& u : kDurationUnits) {
    if (unit == u.name) {
      return u.factor;
    }
  }
  return std::nullopt;
}

// "1.5G": the number times its unit's factor. A whole number is read as an integer,
// so that a large size keeps every digit; a fraction is rounded to the nearest unit.
// `not_one` says what the text is not, when it has no number or an unknown unit.
Result<int64_t> scaled(std::string_view text, std::optional<int64_t> (*factor_of)(std::string_view), const char* not_one) {
  size_t digits = text.find_first_not_of("+-0123456789.");
  std::string_view number = text.substr(0, digits);
  std::string_view unit = digits == std::string_view::npos ? std::string_view() : text.substr(digits);
  auto factor = factor_of(unit);
  const char* number_end = number.data() + number.size();
  if (number.empty() || !factor) {
    return Error{not_one};
  }
  if (number.find('.') == std::string_view::npos) {
    int64_t whole = 0;
    auto [end, ec] = std::from_chars(number.data(), number_end, whole);
    int64_t value = 0;
    if (end != number_end || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      return Error{not_one};
    }
    if (ec == std::errc::result_out_of_range || __builtin_mul_overflow(whole, *factor, &value)) {
      return Error{"too large"};
    }
    return value;
  }
  double fraction = 0;
  auto [end, ec] = std::from_chars(number.data(), number_end, fraction);
  if (end != number_end || ec != std::errc()) {
    return Error{not_one};
  }
  double value = std::round(fraction * static_cast<double>(*factor));
  if (!(std::fabs(value) < 9.2e18)) {  // int64_t ends at 9.22e18
    return Error{"too large"};
  }
  return static_cast<int64_t>(value);
}

}  // namespace

Result<int64_t> parse_duration_ms(std::string_view text) {
  return scaled(text, duration_factor, "not a duration such as 10m, 90s or 500ms");
}

Result<int64_t> parse_interval_ms(std::string_view text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos) {
    int64_t ms = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
    if (ec != std::errc()) {
      return Error{"too large"};
    }
    return ms;
  }
  return scaled(text, duration_factor, "not an interval such as 250ms or 2s (a bare number is milliseconds)");
}

Result<int64_t> parse_size_bytes(std::string_view text) {
  return scaled(text, size_factor, "not a size such as 2G or 512M");
}

std::string duration_text(int64_t ms) {
  for (auto it = kDurationUnits.rbegin(); it != kDurationUnits.rend(); ++it) {
    if (ms % it->factor == 0 && (ms != 0 || it->name == "s")) {
      return std::to_string(ms / it->factor) + std::string(it->name);
    }
  }
  return std::to_string(ms) + "ms";
}

std::string size_text(int64_t bytes) {
  for (auto it = kSizeLetters.rbegin(); it != kSizeLetters.rend(); ++it) {
    if (bytes != 0 && bytes % it->factor == 0) {
      std::string letter(it->name);
      for (char& c : letter) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      }
      return std::to_string(bytes / it->factor) + letter;
    }
  }
  return std::to_string(bytes);
}

}  // namespace canopy
