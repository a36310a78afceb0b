// The library's end of the connection to the recorder: a Unix stream socket, written
// with plain system calls. Sends are whole messages under one lock, so the library's
// thread and an exiting thread never interleave theirs.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

#include "heap/wire_format.h"

namespace canopy::heap {

class Channel {
 public:
  // Connects to the socket at `path`; false if the recorder is not there.
  bool connect_to(const char* path);
  bool connected() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  // A failed write (the recorder has gone) closes the channel: later sends do nothing.
  bool send(heap_wire::MessageType type, const void* payload, size_t bytes);
  // The next command byte, or 0 when none is waiting; -1 when the recorder closed.
  int read_command();
  // Also what a forked child does with the parent's connection: closing its copy of
  // the socket leaves the parent's open.
  void close();

  pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;

 private:
  int fd_ = -1;
};

}  // namespace canopy::heap
