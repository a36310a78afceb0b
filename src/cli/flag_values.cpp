#include "cli/flag_values.h"

#include <arpa/inet.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

#include "common/units.h"
#include "web/listen_address.h"

namespace canopy::cli {
namespace {

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// What a value outside [least, most] is told, for any kind of value.
std::string range_text(const std::string& least, const std::string& most) {
  return most.empty() ? "must be at least " + least : "must be from " + least + " to " + most;
}

// Adds `check` to `option`: it returns the value for CLI11 to store (converted, or as
// given), or why the value is refused.
CLI::Option* add_check(CLI::Option* option, const std::string& description,
                       std::function<Result<std::string>(const std::string&)> check) {
  std::string flag = option->get_name();
  option->transform(CLI::Validator(
      [flag, check = std::move(check)](std::string& value) {
        auto taken = check(value);
        if (!taken) {
          throw FlagValueError(flag + " '" + value + "': " + taken.error().message);
        }
        value = *taken;
        return std::string();
      },
      description));
  return option;
}

// A size, a duration or an interval, from `least` to `most`: handed to CLI11 as a plain
// integer (bytes, milliseconds), and `text` writes the bounds back as the user would.
CLI::Option* take_scaled(CLI::Option* option, const char* description, Result<int64_t> (*parse)(std::string_view),
                         std::string (*text)(int64_t), int64_t least, int64_t most = kNoMost) {
  return add_check(option, description, [=](const std::string& given) -> Result<std::string> {
    ASSIGN_OR_RETURN(auto value, parse(given));
    if (value < least || value > most) {
      return Error{range_text(text(least), most == kNoMost ? "" : text(most))};
    }
    return std::to_string(value);
  });
}

}  // namespace

CLI::Option* take_integer(CLI::Option* option, int64_t least, int64_t most) {
  std::string most_text = most == kNoMost ? "" : std::to_string(most);
  std::string description =
      "INT " + (most_text.empty() ? ">= " + std::to_string(least) : "in [" + std::to_string(least) + " - " + most_text + "]");
  return add_check(option, description, [=](const std::string& text) -> Result<std::string> {
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || end != text.data() + text.size() || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      return Error{"not a whole number"};
    }
    if (ec == std::errc::result_out_of_range) {
      return Error{text[0] == '-' || !most_text.empty() ? range_text(std::to_string(least), most_text) : "too large"};
    }
    if (value < least || value > most) {
      return Error{range_text(std::to_string(least), most_text)};
    }
    return text;
  });
}

CLI::Option* take_number(CLI::Option* option, double least, double most) {
  std::string range = range_text(number_text(least), number_text(most));
  return add_check(option, "FLOAT in [" + number_text(least) + " - " + number_text(most) + "]",
                   [=](const std::string& text) -> Result<std::string> {
                     double value = 0;
                     auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
                     if (text.empty() || end != text.data() + text.size() || !std::isfinite(value)) {
                       return Error{ec == std::errc::result_out_of_range ? range : "not a number"};
                     }
                     if (ec != std::errc() || value < least || value > most) {
                       return Error{range};
                     }
                     return text;
                   });
}

CLI::Option* take_size(CLI::Option* option, int64_t least_bytes) {
  return take_scaled(option, "SIZE", parse_size_bytes, size_text, least_bytes);
}

CLI::Option* take_duration(CLI::Option* option, int64_t least_ms) {
  return take_scaled(option, "DURATION", parse_duration_ms, duration_text, least_ms);
}

CLI::Option* take_interval(CLI::Option* option, int64_t least_ms, int64_t most_ms) {
  return take_scaled(option, "INTERVAL", parse_interval_ms, duration_text, least_ms, most_ms);
}

CLI::Option* take_ip_address(CLI::Option* option) {
  return add_check(option, "ADDRESS", [](const std::string& text) -> Result<std::string> {
    in6_addr address{};  // room for either
    if (inet_pton(AF_INET, text.c_str(), &address) != 1 && inet_pton(AF_INET6, text.c_str(), &address) != 1) {
      return Error{"not an IPv4 or IPv6 address"};
    }
    return text;
  });
}

CLI::Option* take_path(CLI::Option* option, bool dash_is_stdout) {
  return add_check(option, "FILE", [dash_is_stdout](const std::string& text) -> Result<std::string> {
    if (text.empty()) {
      return Error{"an empty path"};
    }
    // Where "-" is standard output elsewhere, a file of that name is never what was meant.
    if (text == "-" && !dash_is_stdout) {
      return Error{"this is written to a file, not to standard output: name one (./- for a file named -)"};
    }
    return text;
  });
}

CLI::Option* take_text(CLI::Option* option) {
  return add_check(option, "", [](const std::string& text) -> Result<std::string> {
    if (text.empty()) {
      return Error{"an empty value"};
    }
    return text;
  });
}

CLI::Option* take_listen_address(CLI::Option* option, bool value_optional) {
  // A flag whose value is optional shows it in its name ("--serve{127.0.0.1:0}"): a
  // type after it would read as a value it needs.
  return add_check(option, value_optional ? "" : "ADDR:PORT", [](const std::string& text) -> Result<std::string> {
    RETURN_IF_ERROR(web::parse_listen_address(text));
    return text;
  });
}

}  // namespace canopy::cli
