// The library's end of the connection to the recorder: a Unix stream socket, written
// with plain system calls. Sends are whole messages under one lock, so the library's
// thread and an exiting thread never interleave theirs.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

#include "heap/fd_identity.h"
#include "heap/wire_format.h"

namespace canopy::heap {

// Every use of the socket first checks that its number still names it (fd_identity.h).
// When the program has closed it, the channel lets the number go without touching it,
// and connects no more: the recorder sees the connection end, and the image ends at
// its last snapshot, as after a SIGKILL.
class Channel {
 public:
  // Connects to the socket at `path`; false if the recorder is not there, or once the
  // program has taken the channel's socket away.
  bool connect_to(const char* path);
  // Whether there is a connection: false once the program closed the socket.
  bool connected();
  // The socket, to poll: -1 when not connected.
  int fd() { return connected() ? fd_ : -1; }
  // A failed write (the recorder has gone) closes the channel: later sends do nothing.
  bool send(heap_wire::MessageType type, const void* payload, size_t bytes);
  // The next command byte, or 0 when none is waiting; -1 when the recorder closed.
  int read_command();
  // No more sends either way, and the recorder reads to the end of what was sent.
  void shutdown();
  void close();
  // A forked child's: closes its copy of the parent's socket (the parent's stays open),
  // and may connect on its own.
  void close_in_child();

  pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;

 private:
  int fd_ = -1;
  FdIdentity opened_;
  bool taken_away_ = false;  // the program closed the socket
};

}  // namespace canopy::heap
