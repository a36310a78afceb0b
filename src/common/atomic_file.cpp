#include "common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace canopy {
namespace {

constexpr size_t kBufferBytes = 1 << 20;

}  // namespace

Result<AtomicFile> AtomicFile::create(const std::string& path) {
  AtomicFile file;
  file.path_ = path;
  file.temporary_ = path + ".tmp-" + std::to_string(::getpid());
  file.fd_ = ScopedFd(::open(file.temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!file.fd_) {
    int error = errno;
    file.temporary_.clear();
    return Error{"cannot write " + path + ": " + std::strerror(error)};
  }
  file.buffer_.reserve(kBufferBytes);
  return file;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      temporary_(std::exchange(other.temporary_, {})),
      fd_(std::move(other.fd_)),
      buffer_(std::move(other.buffer_)),
      errno_(other.errno_) {}

AtomicFile::~AtomicFile() {
  if (!temporary_.empty()) {
    ::unlink(temporary_.c_str());
  }
}

void AtomicFile::flush_buffer() {
  size_t written = 0;
  while (errno_ == 0 && written < buffer_.size()) {
    ssize_t n = ::write(fd_.get(), buffer_.data() + written, buffer_.size() - written);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      errno_ = n < 0 ? errno : EIO;
      break;
    }
    written += static_cast<size_t>(n);
  }
  buffer_.clear();
}

void AtomicFile::write(std::string_view bytes) {
  buffer_.append(bytes);
  if (buffer_.size() >= kBufferBytes) {
    flush_buffer();
  }
}

Status AtomicFile::commit() {
  flush_buffer();
  if (errno_ == 0 && (::fsync(fd_.get()) != 0 || ::rename(temporary_.c_str(), path_.c_str()) != 0)) {
    errno_ = errno;
  }
  if (errno_ != 0) {
    return Error{"cannot write " + path_ + ": " + std::strerror(errno_)};
  }
  temporary_.clear();  // renamed: nothing to remove
  return Ok{};
}

}  // namespace canopy
