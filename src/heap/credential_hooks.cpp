// setuid and its kin, in front of the C library's: before a program gives up its user,
// the library connects to the recorder while it still may (agent.h). The C library's
// own functions then do the change, in every thread of the process.
#include <sys/types.h>

#include <atomic>

#include "heap/agent.h"
#include "heap/next_definition.h"

namespace {

using canopy::heap::next_definition;

std::atomic<void*> next_setuid{nullptr};
std::atomic<void*> next_seteuid{nullptr};
std::atomic<void*> next_setreuid{nullptr};
std::atomic<void*> next_setresuid{nullptr};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int setuid(uid_t uid) {
  auto next = next_definition<int(uid_t)>(next_setuid, "setuid");
  canopy::heap::agent_connect_while_reachable();
  return next(uid);
}

__attribute__((visibility("default"))) int seteuid(uid_t uid) {
  auto next = next_definition<int(uid_t)>(next_seteuid, "seteuid");
  canopy::heap::agent_connect_while_reachable();
  return next(uid);
}

__attribute__((visibility("default"))) int setreuid(uid_t real, uid_t effective) {
  auto next = next_definition<int(uid_t, uid_t)>(next_setreuid, "setreuid");
  canopy::heap::agent_connect_while_reachable();
  return next(real, effective);
}

__attribute__((visibility("default"))) int setresuid(uid_t real, uid_t effective, uid_t saved) {
  auto next = next_definition<int(uid_t, uid_t, uid_t)>(next_setresuid, "setresuid");
  canopy::heap::agent_connect_while_reachable();
  return next(real, effective, saved);
}

}  // extern "C"
