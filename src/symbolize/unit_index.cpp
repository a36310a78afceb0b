#include "symbolize/unit_index.h"

#include <dwarf.h>

namespace canopy::symbolize {

UnitIndex::UnitIndex(Dwfl_Module* module) {
  Dwarf* dwarf = dwfl_module_getdwarf(module, &bias_);
  if (dwarf == nullptr) {
    return;
  }
  Dwarf_CU* cu = nullptr;
  Dwarf_Die unit;
  uint8_t unit_type = 0;
  while (dwarf_get_units(dwarf, cu, &cu, nullptr, &unit_type, &unit, nullptr) == 0) {
    if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) {
      continue;  // type units and skeletons hold no code of their own here
    }
    units_.push_back(unit);
    Dwarf_Addr base = 0;
    Dwarf_Addr low = 0;
    Dwarf_Addr high = 0;
    for (ptrdiff_t offset = 0; (offset = dwarf_ranges(&units_.back(), offset, &base, &low, &high)) > 0;) {
      ranges_.add(low, high, units_.size() - 1);
    }
  }
  ranges_.sort();
}

Dwarf_Die* UnitIndex::unit_at(uint64_t address, Dwarf_Addr* bias) {
  std::optional<size_t> unit = ranges_.tag_at(address - bias_);
  if (!unit) {
    return nullptr;
  }
  *bias = bias_;
  return &units_[*unit];
}

}  // namespace canopy::symbolize
