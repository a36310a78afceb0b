// Small helpers for reading kernel text: numbers with std::from_chars, never trusting
// the input, and human units for output.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace canopy {

template <typename Int>
std::optional<Int> parse_int(std::string_view text) {
  Int value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// Splits off the next space-separated field; empty when none is left.
std::string_view next_field(std::string_view& text);

// "1 process", "3 processes".
std::string count_of(int64_t n, std::string_view one, std::string_view many);

// "1.5 GiB", "312.0 MiB", "512 B".
std::string format_bytes(int64_t bytes);
// A change: "+1.5 GiB", "-512 B", "0 B".
std::string format_signed_bytes(int64_t delta);

// "12.345 s", "2 m 03.4 s", "1 h 02 m 03 s".
std::string format_duration_ms(int64_t ms);

// "SIGTERM" for SIGTERM, "SIG?" for a number that names no signal.
std::string signal_name(int signal);

// An instant as this machine's local time, with its offset: "2026-11-22 11:15:30 +0100".
std::string format_local_time_ms(int64_t epoch_ms);

// Bytes as lowercase hex, two digits a byte: build-ids, digests, tokens.
std::string hex_of(const unsigned char* bytes, size_t count);

// `text` without the `blanks` at either end ("" when it is all blanks).
std::string_view trim_spaces(std::string_view text, std::string_view blanks = " \t");

// The last component of a path: "cc1plus" for "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus".
std::string path_base_name(std::string_view path);
// At most ten of `names`, comma-separated, then ", ...": for a line that says what a
// recording holds instead of what was asked for.
std::string listed_names(const std::set<std::string>& names);

}  // namespace canopy
