// A module's DWARF units by the code they cover, read from each unit's own address
// ranges, for the objects whose DWARF has no .debug_aranges: clang and rustc write none
// by default, and libdw (0.188) finds a unit only through that table.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdint>
#include <vector>

namespace canopy::symbolize {

class UnitIndex {
 public:
  // Reads every compilation unit's ranges (DW_AT_low_pc and high_pc, or DW_AT_ranges).
  explicit UnitIndex(Dwfl_Module* module);

  // The unit whose code holds `address` (the module's address), and the bias from the
  // module's addresses to its DWARF's; null when none does.
  Dwarf_Die* unit_at(uint64_t address, Dwarf_Addr* bias);

 private:
  struct Range {
    uint64_t low = 0;   // DWARF addresses
    uint64_t high = 0;  // past the end
    size_t unit = 0;    // into units_
  };
  std::vector<Dwarf_Die> units_;
  std::vector<Range> ranges_;         // by low
  std::vector<uint64_t> highs_so_far_;  // the largest high among ranges_[0..i]
  Dwarf_Addr bias_ = 0;
};

}  // namespace canopy::symbolize
