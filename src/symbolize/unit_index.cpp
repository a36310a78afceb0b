#include "symbolize/unit_index.h"

#include <dwarf.h>

#include <algorithm>

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
      if (low < high) {
        ranges_.push_back({low, high, units_.size() - 1});
      }
    }
  }
  std::sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) { return a.low < b.low; });
  uint64_t high = 0;
  for (const Range& range : ranges_) {
    high = std::max(high, range.high);
    highs_so_far_.push_back(high);
  }
}

Dwarf_Die* UnitIndex::unit_at(uint64_t address, Dwarf_Addr* bias) {
  const uint64_t dwarf_address = address - bias_;
  auto after = std::upper_bound(ranges_.begin(), ranges_.end(), dwarf_address,
                                [](uint64_t a, const Range& r) { return a < r.low; });
  for (size_t i = static_cast<size_t>(after - ranges_.begin()); i-- > 0 && highs_so_far_[i] > dwarf_address;) {
    if (dwarf_address < ranges_[i].high) {
      *bias = bias_;
      return &units_[ranges_[i].unit];
    }
  }
  return nullptr;
}

}  // namespace canopy::symbolize
