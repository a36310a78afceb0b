#include "heap/channel.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace canopy::heap {

bool Channel::connect_to(const char* path) {
  if (taken_away_) {
    return false;
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  size_t length = std::strlen(path);
  if (length >= sizeof address.sun_path) {
    return false;
  }
  std::memcpy(address.sun_path, path, length);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return false;
  }
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return false;
  }
  fd_ = away_from_low_numbers(fd);
  opened_ = fd_identity(fd_);
  return true;
}

bool Channel::connected() {
  if (fd_ < 0) {
    return false;
  }
  if (!still_names(fd_, opened_)) {
    fd_ = -1;  // the number is the program's now
    taken_away_ = true;
    return false;
  }
  return true;
}

bool Channel::send(heap_wire::MessageType type, const void* payload, size_t bytes) {
  if (!connected()) {
    return false;
  }
  heap_wire::MessageHeader header{static_cast<uint32_t>(type), static_cast<uint32_t>(bytes)};
  iovec parts[2] = {{&header, sizeof header}, {const_cast<void*>(payload), bytes}};
  int count = 2;
  iovec* next = parts;
  while (count > 0) {
    msghdr message{};
    message.msg_iov = next;
    message.msg_iovlen = static_cast<size_t>(count);
    ssize_t sent = ::sendmsg(fd_, &message, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) {
        continue;
      }
      close();
      return false;
    }
    auto left = static_cast<size_t>(sent);
    while (count > 0 && left >= next->iov_len) {
      left -= next->iov_len;
      ++next;
      --count;
    }
    if (count > 0) {
      next->iov_base = static_cast<char*>(next->iov_base) + left;
      next->iov_len -= left;
    }
  }
  return true;
}

int Channel::read_command() {
  if (!connected()) {
    return -1;
  }
  char command;
  ssize_t got = ::recv(fd_, &command, 1, MSG_DONTWAIT);
  if (got == 1) {
    return static_cast<unsigned char>(command);
  }
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) {
    return 0;
  }
  return -1;
}

void Channel::shutdown() {
  if (connected()) {
    ::shutdown(fd_, SHUT_RDWR);
  }
}

void Channel::close() {
  if (connected()) {
    ::close(fd_);
  }
  fd_ = -1;
}

void Channel::close_in_child() {
  close();
  taken_away_ = false;
}

}  // namespace canopy::heap
