// A module's DWARF units by the code they cover, read from each unit's own address
// ranges, for the objects whose DWARF has no .debug_aranges: clang and rustc write none
// by default, and libdw (0.188) finds a unit only through that table.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdint>
#include <vector>

#include "symbolize/address_ranges.h"

namespace canopy::symbolize {

class UnitIndex {
 public:
  // Reads every compilation unit's ranges (DW_AT_low_pc and high_pc, or DW_AT_ranges).
  explicit UnitIndex(Dwfl_Module* module);

  // The unit whose code holds `address` (the module's address), and the bias from the
  // module's addresses to its DWARF's; null when none does.
  Dwarf_Die* unit_at(uint64_t address, Dwarf_Addr* bias);

 private:
  std::vector<Dwarf_Die> units_;
  AddressRanges ranges_;  // DWARF addresses, tagged with an index into units_
  Dwarf_Addr bias_ = 0;
};

}  // namespace canopy::symbolize
