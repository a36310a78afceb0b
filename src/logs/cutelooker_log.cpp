// The Cutelooker/Onlooker log: one JSON object whose keys are milliseconds since the
// epoch (UTC) and whose values are the messages logged then:
//   {"1643811426000": ["first message", "second message"], "1643811426250": ["third"]}
// Parsed with nlohmann's SAX interface from a chunked reader, so a log of any size is
// read in bounded memory; the reader counts lines and columns for error messages.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>

#include "common/scoped_resource.h"
#include "common/text.h"
#include "logs/json_lines.h"

namespace canopy::logs {
namespace {

// The file as a stream of bytes, with the position of the last byte handed out.
class ByteSource {
 public:
  explicit ByteSource(int fd) : fd_(fd), buffer_(1 << 20) {}

  // The next byte, or EOF at the end (and on a read error, kept in error()).
  int next() {
    if (pos_ == size_ && !fill()) {
      return std::char_traits<char>::eof();
    }
    unsigned char c = static_cast<unsigned char>(buffer_[pos_++]);
    ++offset_;
    if (c == '\n') {
      ++line_;
      column_ = 0;
    } else {
      ++column_;
    }
    return c;
  }
  int64_t line() const { return line_; }
  int64_t column() const { return column_; }
  int64_t offset() const { return offset_; }
  int read_errno() const { return errno_; }

 private:
  bool fill() {
    ssize_t n;
    while ((n = ::read(fd_, buffer_.data(), buffer_.size())) < 0 && errno == EINTR) {
    }
    if (n < 0) {
      errno_ = errno;
    }
    pos_ = 0;
    size_ = n > 0 ? static_cast<size_t>(n) : 0;
    return size_ > 0;
  }

  int fd_;
  std::vector<char> buffer_;
  size_t pos_ = 0;
  size_t size_ = 0;
  int64_t line_ = 1;
  int64_t column_ = 0;
  int64_t offset_ = 0;
  int errno_ = 0;
};

// An input iterator over a ByteSource, the shape nlohmann's iterator adapter wants.
// Only the end sentinel compares equal to an exhausted iterator.
class ByteIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  ByteIterator() = default;  // the end
  explicit ByteIterator(ByteSource* source) : source_(source) { advance(); }

  const char& operator*() const { return current_; }
  ByteIterator& operator++() {
    advance();
    return *this;
  }
  ByteIterator operator++(int) {
    ByteIterator copy = *this;
    advance();
    return copy;
  }
  bool operator==(const ByteIterator& other) const { return at_end() == other.at_end(); }
  bool operator!=(const ByteIterator& other) const { return !(*this == other); }

 private:
  bool at_end() const { return source_ == nullptr || ended_; }
  void advance() {
    int c = source_->next();
    ended_ = c == std::char_traits<char>::eof();
    current_ = static_cast<char>(c);
  }

  ByteSource* source_ = nullptr;
  char current_ = 0;
  bool ended_ = false;
};

class CutelookerSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  CutelookerSax(const ParseInput& input, const EventSink& sink, const ByteSource& source)
      : input_(input), sink_(sink), source_(source) {}

  const std::optional<Error>& error() const { return error_; }

  bool start_object(std::size_t) override {
    if (depth_ != 0) {
      return fail("expected a string message, found an object");
    }
    depth_ = 1;
    return true;
  }
  bool key(string_t& key) override {
    auto ms = parse_int<int64_t>(key);
    if (!ms) {
      return fail("key \"" + key + "\" is not a time (milliseconds since the epoch)");
    }
    key_ms_ = *ms;
    key_ = key;
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ != 1) {
      return fail(depth_ == 0 ? "expected an object of {\"milliseconds\": [messages]}, found an array"
                              : "expected a string message, found an array");
    }
    depth_ = 2;
    return true;
  }
  bool end_array() override {
    depth_ = 1;
    return true;
  }
  bool end_object() override {
    depth_ = 0;
    return true;
  }
  bool string(string_t& value) override {
    if (depth_ != 2) {
      return fail(depth_ == 0 ? "expected an object of {\"milliseconds\": [messages]}, found a string"
                              : "the value of \"" + key_ + "\" should be an array of strings, found a string");
    }
    if (auto status = sink_(key_ms_, value); !status) {
      error_ = status.error();
      return false;
    }
    if (input_.progress && (++count_ & 0x3FFF) == 0) {
      input_.progress(source_.offset(), -1);
    }
    return true;
  }
  bool null() override { return wrong("null"); }
  bool boolean(bool) override { return wrong("a boolean"); }
  bool number_integer(number_integer_t) override { return wrong("a number"); }
  bool number_unsigned(number_unsigned_t) override { return wrong("a number"); }
  bool number_float(number_float_t, const string_t&) override { return wrong("a number"); }
  bool binary(binary_t&) override { return wrong("binary data"); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    return fail(json_error_reason(e));
  }

 private:
  bool wrong(const std::string& found) {
    if (depth_ == 2) {
      return fail("messages of \"" + key_ + "\" should be strings, found " + found);
    }
    if (depth_ == 1) {
      return fail("the value of \"" + key_ + "\" should be an array of strings, found " + found);
    }
    return fail("expected an object of {\"milliseconds\": [messages]}, found " + found);
  }
  bool fail(const std::string& reason) {
    if (!error_) {
      error_ = Error{input_.path + ":" + std::to_string(source_.line()) + ":" + std::to_string(source_.column()) +
                     ": " + reason};
    }
    return false;
  }

  const ParseInput& input_;
  const EventSink& sink_;
  const ByteSource& source_;
  int depth_ = 0;
  int64_t key_ms_ = 0;
  std::string key_;
  int64_t count_ = 0;
  std::optional<Error> error_;
};

}  // namespace

Status parse_cutelooker_log(const ParseInput& input, const EventSink& sink) {
  ScopedFd fd(::open(input.path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return Error{"cannot read '" + input.path + "': " + std::strerror(errno)};
  }
  ByteSource source(fd.get());
  CutelookerSax sax(input, sink, source);
  bool ok = nlohmann::json::sax_parse(ByteIterator(&source), ByteIterator(), &sax);
  if (source.read_errno() != 0) {
    return Error{"cannot read '" + input.path + "': " + std::strerror(source.read_errno())};
  }
  if (!ok || sax.error()) {
    return sax.error() ? *sax.error() : Error{input.path + ": not a Cutelooker log"};
  }
  return Ok{};
}

}  // namespace canopy::logs
