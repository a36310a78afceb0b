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
  OutputFile file(StagedOutput(path, target, rules.force));
  const std::string& temporary = file.staged_.temporary();
  file.fd_ = temporary.empty() ? ScopedFd(::open(path.c_str(), O_WRONLY | O_CLOEXEC))
                               : ScopedFd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!file.fd_) {
    int error = errno;
    file.staged_.forget();
    return Error{"cannot write '" + path + "': " + std::strerror(error)};
  }
  file.buffer_.reserve(kBufferBytes);
  return file;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : staged_(std::move(other.staged_)),
      fd_(std::move(other.fd_)),
      buffer_(std::move(other.buffer_)),
      errno_(other.errno_) {}

OutputFile::~OutputFile() { staged_.remove(); }

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
    return Error{"cannot write '" + staged_.shown() + "': " + std::strerror(errno_)};
  }
  if (staged_.target().kind == OutputTarget::Kind::kStream) {
    return Ok{};  // written through: there is nothing to sync or rename
  }
  if (::fsync(fd_.get()) != 0) {
    return Error{"cannot write '" + staged_.shown() + "': " + std::strerror(errno)};
  }
  return staged_.place();
}

}  // namespace canopy
