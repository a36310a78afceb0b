#include "record/output_capture.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace canopy::record {
namespace {

// A pseudo-terminal whose slave end passes bytes through unchanged (raw: no "\n" ->
// "\r\n"), with the size of the terminal it stands in for. Returns false when the
// system has none to give (no /dev/ptmx in a container): the caller uses a pipe.
bool open_pty(int like_fd, ScopedFd& master, ScopedFd& slave) {
  ScopedFd m(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!m || ::grantpt(m.get()) != 0 || ::unlockpt(m.get()) != 0) {
    return false;
  }
  char name[128];
  if (::ptsname_r(m.get(), name, sizeof name) != 0) {
    return false;
  }
  ScopedFd s(::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
  termios raw{};
  if (!s || ::tcgetattr(s.get(), &raw) != 0) {
    return false;
  }
  ::cfmakeraw(&raw);
  ::tcsetattr(s.get(), TCSANOW, &raw);
  winsize size{};
  if (::ioctl(like_fd, TIOCGWINSZ, &size) == 0) {
    ::ioctl(s.get(), TIOCSWINSZ, &size);
  }
  master = std::move(m);
  slave = std::move(s);
  return true;
}

// Passes bytes on to our own stdout/stderr. False when the reader has gone (EPIPE).
bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == EAGAIN) {
        pollfd p{fd, POLLOUT, 0};
        ::poll(&p, 1, -1);
        continue;
      }
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Result<OutputCapture> OutputCapture::create(LineSink sink) {
  OutputCapture capture;
  const char* names[2] = {"stdout", "stderr"};
  for (int i = 0; i < 2; ++i) {
    Stream& stream = capture.streams_[static_cast<size_t>(i)];
    stream.name = names[i];
    stream.forward_to = i + 1;
    stream.is_pty = ::isatty(stream.forward_to) == 1 && open_pty(stream.forward_to, stream.ours, stream.child_end);
    if (!stream.is_pty) {
      int fds[2];
      if (::pipe2(fds, O_CLOEXEC) != 0) {
        return Error{std::string("cannot capture the command's ") + names[i] + ": pipe: " + std::strerror(errno)};
      }
      stream.ours = ScopedFd(fds[0]);
      stream.child_end = ScopedFd(fds[1]);
    }
    ::fcntl(stream.ours.get(), F_SETFL, ::fcntl(stream.ours.get(), F_GETFL) | O_NONBLOCK);
    const char* kind = stream.name;
    stream.lines = std::make_unique<OutputLines>(
        [sink, kind](int64_t t_ms, const std::string& text) { sink(t_ms, kind, text); });
  }
  return capture;
}

void OutputCapture::close_child_ends() {
  for (Stream& stream : streams_) {
    stream.child_end.reset();
  }
}

bool OutputCapture::read_once(Stream& stream, int64_t now_ms) {
  char buffer[64 << 10];
  ssize_t n;
  while ((n = ::read(stream.ours.get(), buffer, sizeof buffer)) < 0 && errno == EINTR) {
  }
  if (n < 0 && errno == EAGAIN) {
    return false;  // nothing more for now; the stream stays open
  }
  if (n <= 0) {
    // EOF on a pipe; EIO on a pty whose every slave fd is closed.
    stream.lines->flush();
    stream.ours.reset();
    return false;
  }
  if (!write_all(stream.forward_to, buffer, static_cast<size_t>(n))) {
    // Whoever read our output has gone (`canopy record ... | head`). Closing our end
    // gives the command the EPIPE it would have had without canopy in between.
    stream.lines->feed({buffer, static_cast<size_t>(n)}, now_ms);
    stream.lines->flush();
    stream.ours.reset();
    return false;
  }
  stream.lines->feed({buffer, static_cast<size_t>(n)}, now_ms);
  return true;
}

void OutputCapture::read_available(int64_t now_ms) {
  // In turns until a whole turn reads nothing, at one time: then a line the command
  // wrote to one stream before a line on the other is never stamped after it. (Read
  // one at a time, with the clock read for each, the second read could take in lines
  // written after the first's, and a millisecond later.)
  constexpr int kMaxTurns = 256;  // a command that never stops writing must not hold the loop
  for (int turn = 0; turn < kMaxTurns; ++turn) {
    bool read_any = false;
    for (Stream& stream : streams_) {
      read_any = (stream.ours && read_once(stream, now_ms)) || read_any;
    }
    if (!read_any) {
      return;
    }
  }
}

void OutputCapture::drain(int64_t now_ms) {
  // Bounded: a daemon that keeps writing must not keep the recorder from ending.
  constexpr int kMaxReads = 256;
  for (Stream& stream : streams_) {
    for (int i = 0; i < kMaxReads && stream.ours && read_once(stream, now_ms); ++i) {
    }
    stream.lines->flush();
  }
}

std::string OutputCapture::kinds() const {
  return std::string("stdout:") + (streams_[0].is_pty ? "pty" : "pipe") + ",stderr:" +
         (streams_[1].is_pty ? "pty" : "pipe");
}

}  // namespace canopy::record
