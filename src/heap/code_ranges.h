// Where the loaded objects' code lies, so that the frame-pointer walk can tell a
// return address from a stray word on the stack before it reads the instruction
// before it. Refreshed (by the library's thread, or at load) when an object is loaded
// or unloaded; read, without a lock, from the sampled path.
#pragma once

#include <cstdint>

namespace canopy::heap {

// Rebuilds the table when dl_iterate_phdr counts a change; no allocation.
void refresh_code_ranges();
// True when pc lies in an executable segment of a loaded object.
bool in_code(uintptr_t pc);
// True when pc lies in this library's own code: frames of it are not the program's.
bool in_own_code(uintptr_t pc);

}  // namespace canopy::heap
