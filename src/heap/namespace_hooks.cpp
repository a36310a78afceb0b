// unshare and setns, in front of the kernel's: entering a new user namespace needs a
// process of one thread, so the library's own thread ends first (agent.h). Any other
// namespace is entered with the thread running. setns is given a descriptor of any
// namespace when nstype is 0: it may be a user namespace. And chroot, after which the
// recorder's socket is out of sight: the library connects before it.
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "heap/agent.h"

namespace {

template <typename Call>
int single_threaded(bool needed, Call call) {
  if (!needed) {
    return call();
  }
  canopy::heap::agent_before_single_thread_call();
  int result = call();
  int error = errno;  // the call's, whatever starting the thread again sets
  canopy::heap::agent_after_single_thread_call();
  errno = error;
  return result;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int unshare(int flags) {
  return single_threaded((flags & CLONE_NEWUSER) != 0,
                         [&] { return static_cast<int>(::syscall(SYS_unshare, flags)); });
}

__attribute__((visibility("default"))) int chroot(const char* path) {
  canopy::heap::agent_connect_while_reachable();
  return static_cast<int>(::syscall(SYS_chroot, path));
}

__attribute__((visibility("default"))) int setns(int fd, int nstype) {
  return single_threaded(nstype == 0 || (nstype & CLONE_NEWUSER) != 0,
                         [&] { return static_cast<int>(::syscall(SYS_setns, fd, nstype)); });
}

}  // extern "C"
