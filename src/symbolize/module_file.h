// One ELF object of a recording, opened from disk once: whether it is the build that was
// loaded, and libdwfl's handle on it for lookups.
#pragma once

#include <elfutils/libdwfl.h>

#include <memory>
#include <unordered_map>

#include "common/scoped_resource.h"
#include "symbolize/elf_handles.h"
#include "symbolize/symbol_index.h"
#include "symbolize/symbolizer.h"
#include "symbolize/unit_functions.h"
#include "symbolize/unit_index.h"

namespace canopy::symbolize {

class ModuleFile {
 public:
  // Never fails: state() says why there is nothing to look up.
  explicit ModuleFile(const ModuleRef& ref);
  ModuleFile(const ModuleFile&) = delete;
  ModuleFile& operator=(const ModuleFile&) = delete;

  ModuleState state() const { return state_; }
  // Set only when state() is kResolved. The module sits at the file's own addresses
  // (bias 0), so an address in the file is passed to libdwfl as it is.
  Dwfl_Module* dwfl_module() const { return module_; }
  // Its symbol table by address, read on first use. Only when state() is kResolved.
  const SymbolIndex& symbols();
  // Its DWARF units by address, read on first use. Only when state() is kResolved.
  UnitIndex& units();
  // One of its units' functions by address, read on first use.
  UnitFunctions& functions_of(Dwarf_Die* unit);

 private:
  ModuleState load(const ModuleRef& ref);
  // `fd` as the object `ref` names: kResolved when it is that build.
  ModuleState load_file(ScopedFd fd, const ModuleRef& ref);

  ScopedDwfl dwfl_;
  Dwfl_Module* module_ = nullptr;  // owned by dwfl_
  ModuleState state_ = ModuleState::kMissing;
  std::unique_ptr<SymbolIndex> symbols_;
  std::unique_ptr<UnitIndex> units_;
  std::unordered_map<Dwarf_Off, std::unique_ptr<UnitFunctions>> unit_functions_;  // by the unit's offset
};

}  // namespace canopy::symbolize
