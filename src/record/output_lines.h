// Cuts a command's output stream into lines for the timeline. Output is whatever the
// command writes: colour escapes, progress bars redrawn with '\r', binary data with
// no newline for megabytes. A line keeps the time its first byte arrived; its text is
// what a reader saw last on that line, without terminal escapes, as valid UTF-8.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace canopy::record {

class OutputLines {
 public:
  // A line longer than this is cut (binary output may never have a newline).
  static constexpr size_t kMaxLineBytes = 64 << 10;
  using LineSink = std::function<void(int64_t t_ms, const std::string& text)>;

  explicit OutputLines(LineSink sink) : sink_(std::move(sink)) {}

  // Bytes read at `t_ms`.
  void feed(std::string_view bytes, int64_t t_ms);
  // The partial line at the end of the stream, if any.
  void flush();

 private:
  void emit();

  LineSink sink_;
  std::string pending_;
  int64_t pending_t_ms_ = 0;
};

// The text of one raw output line as a terminal would have left it: the part after
// the last carriage return, without ANSI/VT escape sequences, valid UTF-8.
std::string displayed_text(std::string_view raw);

}  // namespace canopy::record
