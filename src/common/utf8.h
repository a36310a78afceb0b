// Text from outside (log files, a command's output) may hold any bytes; what we store
// and serve as JSON must be UTF-8. Invalid sequences become U+FFFD.
#pragma once

#include <string>
#include <string_view>

namespace canopy {

bool is_valid_utf8(std::string_view text);

// Bytes in the valid UTF-8 sequence that starts `text` (1 to 4), or 0 when it is not
// valid UTF-8, is NUL, or `text` is empty.
size_t utf8_sequence_length(std::string_view text);

// Appends `text` to `out` with every invalid byte replaced by U+FFFD and NUL bytes
// dropped (SQLite and C strings stop at them).
void append_sanitized_utf8(std::string& out, std::string_view text);

// `text` itself when it is valid and has no NUL (no copy), else a sanitised copy in
// `scratch`.
std::string_view sanitized_utf8(std::string_view text, std::string& scratch);

// The longest prefix of `text` of at most `max_bytes` that does not end inside a
// character: a cut there would leave an invalid sequence behind.
std::string_view utf8_prefix(std::string_view text, size_t max_bytes);

}  // namespace canopy
