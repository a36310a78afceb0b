#include "record/heap_listener.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "record/mark_channel.h"

namespace canopy::record {
namespace {

// A message larger than this is not one the library sends: its batches are a few
// hundred KiB.
constexpr uint32_t kMaxPayloadBytes = 64u << 20;
constexpr uint64_t kListenerTag = 0;

}  // namespace

Result<HeapListener> HeapListener::create(const std::string& directory) {
  HeapListener listener;
  listener.socket_path_ = directory + "/" + kHeapSocketName;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (listener.socket_path_.size() >= sizeof address.sun_path) {
    return Error{"cannot listen for the heap profiler at '" + listener.socket_path_ +
                 "': longer than a socket path may be (set TMPDIR to a shorter directory)"};
  }
  std::memcpy(address.sun_path, listener.socket_path_.c_str(), listener.socket_path_.size() + 1);
  listener.socket_ = ScopedFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  listener.epoll_ = ScopedFd(::epoll_create1(EPOLL_CLOEXEC));
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = kListenerTag;
  if (!listener.socket_ || !listener.epoll_ ||
      ::bind(listener.socket_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener.socket_.get(), SOMAXCONN) != 0 ||
      ::epoll_ctl(listener.epoll_.get(), EPOLL_CTL_ADD, listener.socket_.get(), &event) != 0) {
    return Error{"cannot listen for the heap profiler at '" + listener.socket_path_ + "': " + std::strerror(errno)};
  }
  return listener;
}

HeapListener::~HeapListener() {
  if (socket_) {
    ::unlink(socket_path_.c_str());
  }
}

void HeapListener::accept_new(const Handler& handler) {
  for (;;) {
    ScopedFd fd(::accept4(socket_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) {
      return;  // EAGAIN: none left (or a connection that died before we took it)
    }
    ucred peer{};
    socklen_t length = sizeof peer;
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) {
      continue;
    }
    int id = next_id_++;
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = static_cast<uint64_t>(id);
    if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd.get(), &event) != 0) {
      continue;
    }
    connections_.push_back({id, peer.pid, std::move(fd), {}});
    handler.opened(id, peer.pid);
  }
}

bool HeapListener::read_connection(Connection& connection, const Handler& handler) {
  unsigned char chunk[64 << 10];
  for (;;) {
    ssize_t got = ::read(connection.fd.get(), chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0 && errno == EAGAIN) {
      break;
    }
    bool ended = got <= 0;
    if (got > 0) {
      connection.buffer.insert(connection.buffer.end(), chunk, chunk + got);
    }
    size_t start = 0;
    while (connection.buffer.size() - start >= sizeof(heap_wire::MessageHeader)) {
      heap_wire::MessageHeader header;
      std::memcpy(&header, connection.buffer.data() + start, sizeof header);
      if (header.payload_bytes > kMaxPayloadBytes) {
        return false;
      }
      size_t whole = sizeof header + header.payload_bytes;
      if (connection.buffer.size() - start < whole) {
        break;
      }
      std::span<const unsigned char> payload(connection.buffer.data() + start + sizeof header, header.payload_bytes);
      if (!handler.message(connection.id, static_cast<heap_wire::MessageType>(header.type), payload)) {
        return false;
      }
      start += whole;
    }
    connection.buffer.erase(connection.buffer.begin(), connection.buffer.begin() + static_cast<ptrdiff_t>(start));
    if (ended) {
      return false;
    }
  }
  return true;
}

void HeapListener::read_available(const Handler& handler) {
  epoll_event events[64];
  int count = ::epoll_wait(epoll_.get(), events, 64, 0);
  for (int i = 0; i < count; ++i) {
    if (events[i].data.u64 == kListenerTag) {
      accept_new(handler);
      continue;
    }
    auto id = static_cast<int>(events[i].data.u64);
    for (auto it = connections_.begin(); it != connections_.end(); ++it) {
      if (it->id == id) {
        if (!read_connection(*it, handler)) {
          handler.closed(id);
          connections_.erase(it);  // its descriptor, closed, leaves the epoll set
        }
        break;
      }
    }
  }
}

bool HeapListener::send_command(pid_t pid, char command) {
  for (Connection& connection : connections_) {
    if (connection.pid == pid) {
      return ::send(connection.fd.get(), &command, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1;
    }
  }
  return false;
}

void HeapListener::reply(int connection, char answer) {
  for (Connection& open : connections_) {
    if (open.id == connection) {
      (void)::send(open.fd.get(), &answer, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
  }
}

void HeapListener::close_all(const Handler& handler) {
  accept_new(handler);
  for (Connection& connection : connections_) {
    read_connection(connection, handler);
    handler.closed(connection.id);
  }
  connections_.clear();
}

}  // namespace canopy::record
