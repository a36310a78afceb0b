// Reads a file line by line in bounded memory: lines are views into a buffer that is
// refilled in large chunks, valid until the next call. Handles LF and CRLF, and a last
// line without a newline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/scoped_resource.h"

namespace canopy::logs {

class LineReader {
 public:
  // One line longer than this is an error: it would otherwise grow the buffer without end.
  static constexpr size_t kMaxLineBytes = 64 << 20;

  static Result<LineReader> open(const std::string& path);

  // The next line without its line ending; false at the end of the file. A read error
  // or an overlong line ends the file early: check error() after the loop.
  bool next(std::string_view& line);

  const std::optional<Error>& error() const { return error_; }
  int64_t line_number() const { return line_number_; }  // of the line last returned, from 1
  int64_t bytes_consumed() const { return consumed_bytes_; }
  int64_t file_size_bytes() const { return file_size_bytes_; }

 private:
  LineReader() = default;
  bool refill();

  std::string path_;
  ScopedFd fd_;
  std::vector<char> buffer_;
  size_t begin_ = 0;  // unread data is buffer_[begin_, end_)
  size_t end_ = 0;
  bool eof_ = false;
  int64_t line_number_ = 0;
  int64_t consumed_bytes_ = 0;
  int64_t file_size_bytes_ = 0;
  std::optional<Error> error_;
};

}  // namespace canopy::logs
