#include "common/json_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/scoped_resource.h"

namespace canopy {
namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The bytes at the start of `text` that are plain string content: before the next '"'
// or '\\'. Strings are most of a log's bytes; memchr skips them far faster than the
// byte-at-a-time state machine.
size_t plain_string_run(std::string_view text) {
  const void* quote = std::memchr(text.data(), '"', text.size());
  size_t until = quote ? static_cast<size_t>(static_cast<const char*>(quote) - text.data()) : text.size();
  const void* backslash = std::memchr(text.data(), '\\', until);
  return backslash ? static_cast<size_t>(static_cast<const char*>(backslash) - text.data()) : until;
}

// The state between chunks. The text is fed chunk by chunk; a piece that lies within
// one chunk is handed over in place, one that spans chunks is gathered in `piece_`.
class Scanner {
 public:
  Scanner(const JsonStreamFile& file, const JsonPieceVisitor& visit)
      : file_(file),
        visit_(visit),
        words_(file.words),
        opener_(file.container == JsonContainer::kArray ? '[' : '{'),
        closer_(file.container == JsonContainer::kArray ? ']' : '}') {}

  // `chunk` is followed by kJsonPieceSlackBytes readable bytes.
  Status scan(std::string_view chunk) {
    chunk_ = chunk;
    mark_ = 0;
    size_t i = 0;
    while (i < chunk.size()) {
      if (state_ == State::kInPiece) {
        size_t from = i;
        bool ended = find_piece_end(chunk, i);
        std::string_view tail = chunk.substr(from, i - from);
        if (!ended) {
          piece_.append(tail);
          RETURN_IF_ERROR(check_size(piece_.size()));
          break;
        }
        RETURN_IF_ERROR(hand_over(tail, /*complete=*/true));
        state_ = State::kAfterPiece;
        continue;  // the byte that ended it: read it again in that state
      }
      if (!is_space(chunk[i])) {
        RETURN_IF_ERROR(structure(chunk[i], i));
        if (state_ == State::kInPiece) {
          continue;  // this byte starts the piece: read it again in that state
        }
      }
      ++i;
    }
    position_.advance(chunk.substr(mark_));
    return Ok{};
  }

  // After the last chunk.
  Status finish(bool empty_file) {
    chunk_ = {};
    mark_ = 0;
    switch (state_) {
      case State::kBeforeContainer:
        return fail(position_, "expected " + words_.expected + ", found " +
                                   (empty_file ? "an empty file" : "only spaces"));
      case State::kInPiece:
        // Cut off inside a piece: let its parser say where its JSON ends.
        RETURN_IF_ERROR(hand_over({}, /*complete=*/false));
        return not_closed();
      case State::kBeforePiece:
      case State::kAfterPiece:
        return not_closed();
      case State::kAfterContainer:
        return Ok{};
    }
    return Ok{};
  }

 private:
  enum class State { kBeforeContainer, kBeforePiece, kInPiece, kAfterPiece, kAfterContainer };

  // A byte outside any piece that is not a space: a bracket, a comma, a piece's first.
  Status structure(char c, size_t i) {
    switch (state_) {
      case State::kBeforeContainer:
        if (c != opener_) {
          bool other = c == (opener_ == '[' ? '{' : '[');
          return fail(position_at(i), "expected " + words_.expected + ", found " + shown_byte(c) +
                                          (other ? words_.if_other_container : ""));
        }
        state_ = State::kBeforePiece;
        break;
      case State::kBeforePiece:
        if (c == closer_ && !after_comma_) {
          state_ = State::kAfterContainer;  // an empty container
        } else if (c == closer_ || c == ',') {
          return fail(position_at(i), "expected " + words_.piece + (after_comma_ ? " after ','" : "") +
                                          ", found " + shown_byte(c));
        } else {
          state_ = State::kInPiece;
          after_comma_ = false;
          piece_start_ = position_at(i);
          piece_.clear();
          depth_ = 0;
          in_string_ = false;
          escaped_ = false;
        }
        break;
      case State::kAfterPiece:
        if (c == ',') {
          state_ = State::kBeforePiece;
          after_comma_ = true;
        } else if (c == closer_) {
          state_ = State::kAfterContainer;
        } else {
          return fail(position_at(i), std::string("expected ',' or '") + closer_ + "' after " + words_.piece +
                                          ", found " + shown_byte(c));
        }
        break;
      case State::kAfterContainer:
        return fail(position_at(i), "unexpected " + shown_byte(c) + " after " + words_.after_end);
      case State::kInPiece:
        break;
    }
    return Ok{};
  }

  // Moves `i` to the byte that ends the current piece (true), or to the chunk's end.
  // A piece ends at a ',' or the container's closing bracket outside any string and
  // any nesting; an element, being one value, also at a space after it.
  bool find_piece_end(std::string_view chunk, size_t& i) {
    bool ends_at_space = file_.container == JsonContainer::kArray;
    while (i < chunk.size()) {
      if (in_string_) {
        if (!escaped_) {
          i += plain_string_run(chunk.substr(i));
          if (i == chunk.size()) {
            break;
          }
        }
        char c = chunk[i++];
        in_string_ = escaped_ || c != '"';
        escaped_ = !escaped_ && c == '\\';
        continue;
      }
      char c = chunk[i];
      if (c == '"') {
        in_string_ = true;
      } else if (c == '[' || c == '{') {
        ++depth_;
      } else if ((c == ']' || c == '}') && depth_ > 0) {
        --depth_;
      } else if (depth_ == 0 && (c == ',' || c == closer_ || (ends_at_space && is_space(c)))) {
        return true;
      }
      ++i;
    }
    return false;
  }

  Status check_size(size_t bytes) const {
    if (bytes > file_.max_piece_bytes) {
      return fail(piece_start_, words_.too_long);
    }
    return Ok{};
  }

  // `tail` is the piece's last part, from the current chunk.
  Status hand_over(std::string_view tail, bool complete) {
    std::string_view text = tail;
    if (!piece_.empty()) {
      piece_.append(tail);
      piece_.reserve(piece_.size() + kJsonPieceSlackBytes);
      text = piece_;
    }
    RETURN_IF_ERROR(check_size(text.size()));
    return visit_({text, index_++, piece_start_, complete});
  }

  // Where chunk_[i] stands. Newlines are counted only when a place is needed, over
  // the bytes since the last one, not byte by byte.
  TextPosition position_at(size_t i) {
    position_.advance(chunk_.substr(mark_, i - mark_));
    mark_ = i;
    return position_;
  }

  Error fail(const TextPosition& at, const std::string& reason) const { return error_at(file_.path, at, reason); }

  Error not_closed() const {
    return fail(position_, "unexpected end of input: " + words_.container + " is not closed");
  }

  const JsonStreamFile& file_;
  const JsonPieceVisitor& visit_;
  const JsonStreamWords& words_;
  const char opener_;
  const char closer_;
  State state_ = State::kBeforeContainer;
  bool after_comma_ = false;
  int depth_ = 0;  // of [ and { inside the piece
  bool in_string_ = false;
  bool escaped_ = false;
  std::string_view chunk_;
  size_t mark_ = 0;         // position_ is where chunk_[mark_] stands
  TextPosition position_;
  TextPosition piece_start_;
  std::string piece_;  // a piece that spans chunks, gathered
  int64_t index_ = 0;
};

Status read_error(const std::string& path) { return Error{"cannot read '" + path + "': " + std::strerror(errno)}; }

}  // namespace

void TextPosition::advance(std::string_view bytes) {
  const char* rest = bytes.data();
  const char* end = rest + bytes.size();
  // Not memchr on an empty view: its data may be null, which memchr may not be given.
  while (rest != end) {
    const void* newline = std::memchr(rest, '\n', static_cast<size_t>(end - rest));
    if (newline == nullptr) {
      break;
    }
    ++line;
    column = 1;
    rest = static_cast<const char*>(newline) + 1;
  }
  column += end - rest;
}

Error error_at(const std::string& path, const TextPosition& at, const std::string& reason) {
  return Error{path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " + reason};
}

std::string shown_byte(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) {
    return std::string("'") + c + "'";
  }
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", u);
  return std::string("byte ") + text;
}

Status for_each_json_piece(const JsonStreamFile& file, const JsonPieceVisitor& visit) {
  ScopedFd fd(::open(file.path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return read_error(file.path);
  }
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error{"cannot read '" + file.path + "': not a regular file"};
  }
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  // A byte order mark, as Windows editors write, is not part of the JSON.
  char head[3];
  int64_t bytes_done = ::pread(fd.get(), head, sizeof head, 0) == 3 && std::memcmp(head, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  if (::lseek(fd.get(), bytes_done, SEEK_SET) < 0) {
    return read_error(file.path);
  }
  Scanner scanner(file, visit);
  std::vector<char> buffer(file.chunk_bytes + kJsonPieceSlackBytes);
  for (;;) {
    ssize_t n;
    while ((n = ::read(fd.get(), buffer.data(), file.chunk_bytes)) < 0 && errno == EINTR) {
    }
    if (n < 0) {
      return read_error(file.path);
    }
    if (n == 0) {
      break;
    }
    RETURN_IF_ERROR(scanner.scan({buffer.data(), static_cast<size_t>(n)}));
    bytes_done += n;
    if (file.progress) {
      file.progress(bytes_done, st.st_size);
    }
  }
  return scanner.finish(/*empty_file=*/bytes_done == 0);
}

}  // namespace canopy
