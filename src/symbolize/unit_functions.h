// The code at the top of one DWARF unit by address: its functions, and those nested in
// its namespaces and classes (clang puts a namespace's functions inside it). Finding the
// function at an address by walking the unit's children reads every one before it: in a
// large unit (a unity build's), naming a few thousand frames took seconds that way.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <vector>

#include "symbolize/address_ranges.h"

namespace canopy::symbolize {

// Scopes with address ranges, which hold code.
bool is_code_scope(int tag);
// Scopes without address ranges that may hold functions.
bool is_named_scope(int tag);

class UnitFunctions {
 public:
  explicit UnitFunctions(Dwarf_Die* unit);

  // The outermost code scope that holds `address` (the unit's DWARF address): a
  // function, with whatever was inlined into it below; null when none does.
  Dwarf_Die* scope_at(uint64_t address);

 private:
  void add_scopes_below(Dwarf_Die* parent, int depth);

  std::vector<Dwarf_Die> scopes_;
  AddressRanges ranges_;  // tagged with an index into scopes_
};

}  // namespace canopy::symbolize
