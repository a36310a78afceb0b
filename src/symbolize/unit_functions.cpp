#include "symbolize/unit_functions.h"

#include <dwarf.h>

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
      ranges_.add(low, high, i);
    }
  }
  ranges_.sort();
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
  std::optional<size_t> scope = ranges_.tag_at(address);
  return scope ? &scopes_[*scope] : nullptr;
}

}  // namespace canopy::symbolize
