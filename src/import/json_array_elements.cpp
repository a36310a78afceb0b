#include "import/json_array_elements.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/scoped_resource.h"
#include "logs/json_lines.h"

namespace canopy::importers {
namespace {

// One process of a day-long Onlooker run at 10 Hz is about 300 MB of text; past this
// the file is not what we think it is.
constexpr size_t kMaxElementBytes = size_t{1} << 30;

void advance(TextPosition& at, char c) {
  if (c == '\n') {
    ++at.line;
    at.column = 1;
  } else {
    ++at.column;
  }
}

// nlohmann's SAX parser, keeping nothing: only where and why the text is not JSON
// (a DOM of a large element would cost gigabytes just to find its error).
struct ErrorOnlySax : nlohmann::json_sax<nlohmann::json> {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    byte = position;
    reason = logs::json_error_reason(e);
    return false;
  }
  size_t byte = 0;  // 1-based, as nlohmann counts
  std::string reason;
};

std::string shown_byte(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) {
    return std::string("'") + c + "'";
  }
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", u);
  return std::string("byte ") + text;
}

class ElementParser {
 public:
  ElementParser(const ArrayFile& file, const ElementVisitor& visit) : file_(file), visit_(visit) {}

  // `text` is one element as it appeared in the file, starting at `start`; not
  // `closed` when the file ended inside it.
  Status parse(std::string& text, const TextPosition& start, bool closed) {
    // simdjson reads a little past the end: with the padding in place it needs no copy.
    text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    simdjson::dom::element value;
    if (!closed || parser_.parse(text).get(value) != simdjson::SUCCESS) {
      return syntax_error(text, start);
    }
    return visit_({value, index_++, start});
  }

 private:
  Error syntax_error(const std::string& text, const TextPosition& start) const {
    ErrorOnlySax sax;
    nlohmann::json::sax_parse(text, &sax);
    if (sax.reason.empty()) {
      // nlohmann took it whole: the file ended right after a complete element.
      TextPosition at = start;
      for (char c : text) {
        advance(at, c);
      }
      return error_at(file_.path, at, "unexpected end of input: the array is not closed");
    }
    TextPosition at = start;
    size_t offset = sax.byte > 0 ? sax.byte - 1 : 0;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
      advance(at, text[i]);
    }
    return error_at(file_.path, at, sax.reason);
  }

  const ArrayFile& file_;
  const ElementVisitor& visit_;
  simdjson::dom::parser parser_;
  int64_t index_ = 0;
};

}  // namespace

Error error_at(const std::string& path, const TextPosition& at, const std::string& reason) {
  return Error{path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " + reason};
}

Status for_each_array_element(const ArrayFile& file, const ElementVisitor& visit) {
  ScopedFd fd(::open(file.path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return Error{"cannot read '" + file.path + "': " + std::strerror(errno)};
  }
  struct stat st{};
  if (::fstat(fd.get(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return Error{"cannot read '" + file.path + "': not a regular file"};
  }
  int64_t bytes_total = st.st_size;
  ElementParser elements(file, visit);
  enum class State { kBeforeArray, kBeforeElement, kInElement, kAfterElement, kAfterArray } state = State::kBeforeArray;
  int depth = 0;  // of [ and { inside the element
  bool in_string = false;
  bool escaped = false;
  bool after_comma = false;
  TextPosition position;
  TextPosition element_start;
  std::string element;
  std::vector<char> buffer(1 << 20);
  int64_t bytes_done = 0;
  for (;;) {
    ssize_t n;
    while ((n = ::read(fd.get(), buffer.data(), buffer.size())) < 0 && errno == EINTR) {
    }
    if (n < 0) {
      return Error{"cannot read '" + file.path + "': " + std::strerror(errno)};
    }
    if (n == 0) {
      break;
    }
    size_t i = 0;
    // A byte order mark, as Windows editors write, is not part of the JSON.
    if (bytes_done == 0 && n >= 3 && std::memcmp(buffer.data(), "\xEF\xBB\xBF", 3) == 0) {
      i = 3;
    }
    for (; i < static_cast<size_t>(n); ++i) {
      char c = buffer[i];
      bool space = c == ' ' || c == '\n' || c == '\r' || c == '\t';
      switch (state) {
        case State::kBeforeArray:
          if (c == '[') {
            state = State::kBeforeElement;
          } else if (!space) {
            return error_at(file.path, position,
                            "expected " + file.expected + ", found " + shown_byte(c) +
                                (c == '{' ? " (an object: a Cutelooker log? that is for canopy log add)" : ""));
          }
          break;
        case State::kBeforeElement:
          if (c == ']' && !after_comma) {
            state = State::kAfterArray;  // an empty array
          } else if (c == ']' || c == ',') {
            return error_at(file.path, position,
                            std::string("expected an element") + (after_comma ? " after ','" : "") + ", found " +
                                shown_byte(c));
          } else if (!space) {
            state = State::kInElement;
            after_comma = false;
            element_start = position;
            element.clear();
            depth = 0;
            in_string = false;
            escaped = false;
            --i;  // this byte starts the element: read it again in that state
            continue;
          }
          break;
        case State::kInElement:
          if (in_string) {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
          } else if (c == '"') {
            in_string = true;
          } else if (c == '[' || c == '{') {
            ++depth;
          } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
          } else if (depth == 0 && (space || c == ',' || c == ']')) {
            if (auto status = elements.parse(element, element_start, /*closed=*/true); !status) {
              return status;
            }
            state = State::kAfterElement;
            --i;  // the separator: read it again in that state
            continue;
          }
          element.push_back(c);
          if (element.size() > kMaxElementBytes) {
            return error_at(file.path, element_start, "one element is longer than 1 GiB");
          }
          break;
        case State::kAfterElement:
          if (c == ',') {
            state = State::kBeforeElement;
            after_comma = true;
          } else if (c == ']') {
            state = State::kAfterArray;
          } else if (!space) {
            return error_at(file.path, position, "expected ',' or ']' after an element, found " + shown_byte(c));
          }
          break;
        case State::kAfterArray:
          if (!space) {
            return error_at(file.path, position, "unexpected " + shown_byte(c) + " after the array's end");
          }
          break;
      }
      advance(position, c);
    }
    bytes_done += n;
    if (file.progress) {
      file.progress(bytes_done, bytes_total);
    }
  }
  if (state == State::kInElement) {
    // Cut off inside an element: let the parser say where its JSON ends.
    return elements.parse(element, element_start, /*closed=*/false);
  }
  if (state != State::kAfterArray) {
    return error_at(file.path, position,
                    state == State::kBeforeArray
                        ? "expected " + file.expected + ", found " + (bytes_done == 0 ? "an empty file" : "only spaces")
                        : "unexpected end of input: the array is not closed");
  }
  return Ok{};
}

}  // namespace canopy::importers
