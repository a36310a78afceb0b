// The call chain at one address of a module: DWARF's inlined scopes and line table, and
// the ELF symbol table for function names where there is no DWARF.
#pragma once

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <vector>

#include "symbolize/module_file.h"
#include "symbolize/symbolizer.h"

namespace canopy::symbolize {

// Innermost first, at least one frame (its fields empty when nothing covers pc). pc is
// the address to look up, already moved back into the call for a return address.
std::vector<SourceFrame> source_frames_at(ModuleFile& module, uint64_t pc);

}  // namespace canopy::symbolize
