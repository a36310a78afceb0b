#include "logs/line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace canopy::logs {
namespace {

constexpr size_t kChunkBytes = 1 << 20;

}  // namespace

Result<LineReader> LineReader::open(const std::string& path) {
  LineReader reader;
  reader.path_ = path;
  reader.fd_ = ScopedFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!reader.fd_) {
    return Error{"cannot read '" + path + "': " + std::strerror(errno)};
  }
  struct stat st{};
  if (::fstat(reader.fd_.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    // A pipe or a FIFO would do, but the size for progress would not be known.
    if (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
      return Error{"cannot read '" + path + "': not a regular file"};
    }
  }
  reader.file_size_bytes_ = S_ISREG(st.st_mode) ? st.st_size : 0;
  ::posix_fadvise(reader.fd_.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  reader.buffer_.resize(kChunkBytes);
  return reader;
}

// Moves the unread tail to the front and reads more after it; grows the buffer when
// one line fills it.
bool LineReader::refill() {
  if (eof_) {
    return false;
  }
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) {
    if (buffer_.size() >= kMaxLineBytes) {
      error_ = Error{path_ + ":" + std::to_string(line_number_ + 1) + ": line longer than " +
                     std::to_string(kMaxLineBytes >> 20) + " MiB"};
      return false;
    }
    buffer_.resize(buffer_.size() * 2);
  }
  ssize_t n;
  while ((n = ::read(fd_.get(), buffer_.data() + end_, buffer_.size() - end_)) < 0 && errno == EINTR) {
  }
  if (n < 0) {
    error_ = Error{"cannot read '" + path_ + "': " + std::strerror(errno)};
    return false;
  }
  if (n == 0) {
    eof_ = true;
    return end_ > begin_;  // a last line without a newline
  }
  end_ += static_cast<size_t>(n);
  return true;
}

bool LineReader::next(std::string_view& line) {
  size_t scanned = begin_;
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const void* newline = std::memchr(buffer_.data() + scanned, '\n', end_ - scanned);
    if (newline || (eof_ && end_ > begin_)) {
      size_t length = newline ? static_cast<size_t>(static_cast<const char*>(newline) - start) : end_ - begin_;
      size_t taken = newline ? length + 1 : length;
      if (length > 0 && start[length - 1] == '\r') {
        --length;
      }
      line = std::string_view(start, length);
      begin_ += taken;
      consumed_bytes_ += static_cast<int64_t>(taken);
      ++line_number_;
      return true;
    }
    size_t unread = end_ - begin_;
    if (!refill()) {
      return false;
    }
    scanned = begin_ + unread;  // refill() moved the unread bytes to the front
  }
}

}  // namespace canopy::logs
