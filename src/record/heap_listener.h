// The recorder's end of the heap profiler (record --heap): a Unix stream socket in the
// recording's private directory, to which libcanopy-heap.so connects from each process
// image of the tree, and those connections. Bytes in, whole messages out (the format
// is heap/wire_format.h); single-byte commands back. The socket and every connection
// sit in one epoll set of its own, so the sampling loop waits on one descriptor.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/scoped_resource.h"
#include "heap/wire_format.h"

namespace canopy::record {

class HeapListener {
 public:
  // Listens at DIRECTORY/heap.sock.
  static Result<HeapListener> create(const std::string& directory);
  HeapListener(HeapListener&&) noexcept = default;
  ~HeapListener();

  const std::string& socket_path() const { return socket_path_; }
  int poll_fd() const { return epoll_.get(); }

  struct Handler {
    // A new connection, from the process `pid` (the kernel's word: SO_PEERCRED).
    std::function<void(int connection, pid_t pid)> opened;
    // One whole message. Returning false drops the connection (a message that makes
    // no sense).
    std::function<bool(int connection, heap_wire::MessageType type, std::span<const unsigned char> payload)> message;
    // The connection ended (the process exited or exec'd, or the message made no sense).
    std::function<void(int connection)> closed;
  };
  // Accepts new connections and reads every one that has data, without blocking.
  void read_available(const Handler& handler);
  // Sends a command to the connection of process `pid`; false if it has none.
  bool send_command(pid_t pid, char command);
  // One byte to a connection (a control client's answer).
  void reply(int connection, char answer);
  // Reads what is left and ends every connection (after the tree has ended).
  void close_all(const Handler& handler);

 private:
  HeapListener() = default;
  struct Connection {
    int id;
    pid_t pid;
    ScopedFd fd;
    std::vector<unsigned char> buffer;
  };
  void accept_new(const Handler& handler);
  // False once the connection has ended.
  bool read_connection(Connection& connection, const Handler& handler);

  std::string socket_path_;
  ScopedFd socket_;
  ScopedFd epoll_;
  std::vector<Connection> connections_;
  int next_id_ = 1;
};

}  // namespace canopy::record
