#include "common/utf8.h"

#include <cstdint>
#include <cstring>

namespace canopy {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the valid UTF-8 sequence starting at `p` (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF), or 0 when it is invalid or NUL.
size_t valid_sequence_length(const unsigned char* p, const unsigned char* end) {
  unsigned char c = p[0];
  if (c < 0x80) {
    return c == 0 ? 0 : 1;
  }
  auto continuation = [&](size_t i) { return p + i < end && (p[i] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) {
    return continuation(1) ? 2 : 0;
  }
  if (c >= 0xE0 && c <= 0xEF) {
    if (!continuation(1) || !continuation(2)) {
      return 0;
    }
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0)) {
      return 0;  // overlong, or a UTF-16 surrogate
    }
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!continuation(1) || !continuation(2) || !continuation(3)) {
      return 0;
    }
    if ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90)) {
      return 0;  // overlong, or above U+10FFFF
    }
    return 4;
  }
  return 0;
}

// Bytes at the start of `text` that need no change: whole words of ASCII at a time,
// since logs are mostly ASCII.
size_t clean_prefix(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  const auto* start = p;
  while (p < end) {
    if (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      // No high bit and no zero byte in any of the eight.
      bool ascii = (word & 0x8080808080808080ULL) == 0;
      bool has_zero = ((word - 0x0101010101010101ULL) & ~word & 0x8080808080808080ULL) != 0;
      if (ascii && !has_zero) {
        p += 8;
        continue;
      }
    }
    size_t n = valid_sequence_length(p, end);
    if (n == 0) {
      break;
    }
    p += n;
  }
  return static_cast<size_t>(p - start);
}

}  // namespace

bool is_valid_utf8(std::string_view text) { return clean_prefix(text) == text.size(); }

size_t utf8_sequence_length(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  return text.empty() ? 0 : valid_sequence_length(p, p + text.size());
}

void append_sanitized_utf8(std::string& out, std::string_view text) {
  while (!text.empty()) {
    size_t clean = clean_prefix(text);
    out.append(text.substr(0, clean));
    text.remove_prefix(clean);
    if (text.empty()) {
      break;
    }
    if (text[0] != '\0') {
      out.append(kReplacement);
    }
    text.remove_prefix(1);
  }
}

std::string_view sanitized_utf8(std::string_view text, std::string& scratch) {
  if (clean_prefix(text) == text.size()) {
    return text;
  }
  scratch.clear();
  append_sanitized_utf8(scratch, text);
  return scratch;
}

std::string_view utf8_prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) {
    return text;
  }
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) {  // 10xxxxxx: inside a character
    --n;
  }
  return text.substr(0, n);
}

}  // namespace canopy
