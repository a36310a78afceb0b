#include "common/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace canopy {
namespace {

constexpr size_t kBufferBytes = 1 << 20;

}  // namespace

Result<OutputFile> OutputFile::create(const std::string& path, const OutputRules& rules) {
  ASSIGN_OR_RETURN(auto target, resolve_output(path, rules));
  OutputFile file;
  file.path_ = path;
  file.target_ = target;
  file.force_ = rules.force;
  if (target.kind == OutputTarget::Kind::kStream) {
    file.fd_ = ScopedFd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  } else {
    file.temporary_ = target.path + ".tmp-" + std::to_string(::getpid());
    file.fd_ = ScopedFd(::open(file.temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  }
  if (!file.fd_) {
    int error = errno;
    file.temporary_.clear();
    return Error{"cannot write '" + path + "': " + std::strerror(error)};
  }
  file.buffer_.reserve(kBufferBytes);
  return file;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      force_(other.force_),
      temporary_(std::exchange(other.temporary_, {})),
      fd_(std::move(other.fd_)),
      buffer_(std::move(other.buffer_)),
      errno_(other.errno_) {}

OutputFile::~OutputFile() {
  if (!temporary_.empty()) {
    ::unlink(temporary_.c_str());
  }
}

void OutputFile::flush_buffer() {
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

void OutputFile::write(std::string_view bytes) {
  buffer_.append(bytes);
  if (buffer_.size() >= kBufferBytes) {
    flush_buffer();
  }
}

Status OutputFile::commit() {
  flush_buffer();
  if (errno_ != 0) {
    return Error{"cannot write '" + path_ + "': " + std::strerror(errno_)};
  }
  if (target_.kind == OutputTarget::Kind::kStream) {
    return Ok{};  // written through: there is nothing to sync or rename
  }
  if (::fsync(fd_.get()) != 0) {
    return Error{"cannot write '" + path_ + "': " + std::strerror(errno)};
  }
  Status placed = place_output(temporary_, target_, path_, force_);
  if (placed) {
    temporary_.clear();  // in place: nothing to remove
  }
  return placed;
}

}  // namespace canopy
