// _exit and _Exit, in front of the kernel's exit_group: a program that leaves by them
// (Python's os._exit, a forked child) runs no destructor, so the library's exit
// snapshot is sent from here. exit() reaches _exit inside the C library, not through
// these: its snapshot is the library's destructor's.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include "heap/agent.h"

namespace {

[[noreturn]] void leave(int status) {
  canopy::heap::agent_before_exit();
  for (;;) {
    syscall(SYS_exit_group, status);
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void _exit(int status) { leave(status); }

__attribute__((visibility("default"))) void _Exit(int status) { leave(status); }

}  // extern "C"
