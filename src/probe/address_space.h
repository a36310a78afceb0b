// Whether a process runs in another's address space: a child between vfork (or
// posix_spawn, which vforks) and its exec, or a clone made with CLONE_VM and without
// CLONE_THREAD (LeakSanitizer's tracer). Its statm and status then show that other
// process's memory, none of which is its own.
#pragma once

#include <sys/types.h>

namespace canopy::probe {

enum class AddressSpaces { kShared, kSeparate, kUnknown };

// By kcmp(KCMP_VM), which needs the rights to read both processes (kUnknown without
// them, when either is gone, or when the kernel has no kcmp).
AddressSpaces compare_address_spaces(pid_t a, pid_t b);

}  // namespace canopy::probe
