// Owners of what libelf, libdw and libdwfl give out (common/scoped_resource.h), so that
// every early return of a reader of ELF files frees what it opened.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <libelf.h>

#include <cstdlib>
#include <memory>

#include "common/scoped_resource.h"

namespace canopy::symbolize {

using ScopedElf = ScopedResource<Elf*, elf_end, nullptr>;
using ScopedDwfl = ScopedResource<Dwfl*, dwfl_end, nullptr>;

// The arrays of dwarf_getscopes and dwarf_getscopes_die, from malloc.
struct FreeScopeArray {
  void operator()(Dwarf_Die* scopes) const { std::free(scopes); }
};
using ScopeArray = std::unique_ptr<Dwarf_Die[], FreeScopeArray>;

}  // namespace canopy::symbolize
