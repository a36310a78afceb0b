// The library's descriptors in its host's table: where they sit, and which file each
// refers to. A program expects the lowest free numbers to be its own. It may also close
// every descriptor it did not open itself (a daemon's close_range, a shell's
// `exec 3>&-`) and be given the same number for a file of its own. The library then
// must not read, write, poll or close that number, so it checks the number still names
// the file it opened (the device and inode fstat gives; every socket and eventfd has an
// inode of its own) before each use. fstat is a plain system call: safe in a signal
// handler and after fork, and it allocates nothing.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace canopy::heap {

struct FdIdentity {
  dev_t device = 0;
  ino_t inode = 0;
};

// `fd` moved up out of the numbers a program expects to be given: a program started
// with stdin closed gets 0 from its first open, and a daemon that closes 0, 1 and 2
// reopens them from /dev/null by number. The lowest free number at or above a floor
// (the first that the descriptor limit allows), close-on-exec; `fd` itself when none
// is free.
inline int away_from_low_numbers(int fd) {
  for (int floor : {512, 64}) {
    int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (moved >= 0) {
      ::close(fd);
      return moved;
    }
  }
  return fd;
}

// The identity of the file `fd` names now; {} when it names none.
inline FdIdentity fd_identity(int fd) {
  struct stat status;
  if (fd < 0 || ::fstat(fd, &status) != 0) {
    return {};
  }
  return {status.st_dev, status.st_ino};
}

// Whether `fd` still names the file whose identity was taken when it was opened.
inline bool still_names(int fd, const FdIdentity& opened) {
  FdIdentity now = fd_identity(fd);
  return fd >= 0 && now.inode != 0 && now.device == opened.device && now.inode == opened.inode;
}

}  // namespace canopy::heap
