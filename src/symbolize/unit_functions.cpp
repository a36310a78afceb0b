#include "symbolize/unit_functions.h"

#include <dwarf.h>

#include <algorithm>

namespace canopy::symbolize {
namespace {

// Deeper than any real nesting of namespaces and classes; a corrupt file cannot make
// the walk overflow the stack.
constexpr int kMaxNamedScopeDepth = 256;

}  // namespace

bool is_code_scope(int tag) {
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point ||
         tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block ||
         tag == DW_TAG_with_stmt;
}

bool is_named_scope(int tag) {
  return tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_class_type ||
         tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
}

UnitFunctions::UnitFunctions(Dwarf_Die* unit) {
  add_scopes_below(unit, 0);
  for (size_t i = 0; i < scopes_.size(); ++i) {
    Dwarf_Addr base = 0;
    Dwarf_Addr low = 0;
    Dwarf_Addr high = 0;
    for (ptrdiff_t offset = 0; (offset = dwarf_ranges(&scopes_[i], offset, &base, &low, &high)) > 0;) {
      if (low < high) {
        ranges_.push_back({low, high, i});
      }
    }
  }
  std::stable_sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) { return a.low < b.low; });
  uint64_t high = 0;
  for (const Range& range : ranges_) {
    high = std::max(high, range.high);
    highs_so_far_.push_back(high);
  }
}

void UnitFunctions::add_scopes_below(Dwarf_Die* parent, int depth) {
  Dwarf_Die child;
  if (depth > kMaxNamedScopeDepth || dwarf_child(parent, &child) != 0) {
    return;
  }
  do {
    int tag = dwarf_tag(&child);
    if (is_code_scope(tag)) {
      scopes_.push_back(child);
    } else if (is_named_scope(tag)) {
      add_scopes_below(&child, depth + 1);
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

Dwarf_Die* UnitFunctions::scope_at(uint64_t address) {
  auto after = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                                [](uint64_t a, const Range& r) { return a < r.low; });
  for (size_t i = static_cast<size_t>(after - ranges_.begin()); i-- > 0 && highs_so_far_[i] > address;) {
    if (address < ranges_[i].high) {
      return &scopes_[ranges_[i].scope];
    }
  }
  return nullptr;
}

}  // namespace canopy::symbolize
