// The functions this library defines in front of another object's (malloc, free,
// operator new, dlopen, _exit...), read from its own dynamic symbol table so that a
// hook added to it is counted too, each with the two definitions a slot of its name
// may hold: the library's own, and the next one after it. No allocation.
#pragma once

#include <cstdint>

namespace canopy::heap {

struct InterposedFunction {
  const char* name = nullptr;
  uintptr_t own = 0;
  uintptr_t next = 0;
};

struct Interposed {
  static constexpr int kMax = 64;
  InterposedFunction functions[kMax] = {};
  int count = 0;
  uintptr_t own_base = 0;  // this library's load bias

  // Reads them again: a library loaded since may bring a next definition (libstdc++'s
  // operator new in a C program). A function whose first definition is another's (a
  // program's own operator new) is left out: what its slots hold is not the library's.
  void read();
  // Its index among functions, or -1.
  int index_of(const char* name) const;
};

}  // namespace canopy::heap
