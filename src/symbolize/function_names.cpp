#include "symbolize/function_names.h"

#include <dwarf.h>

#include "symbolize/demangle.h"
#include "symbolize/elf_handles.h"

namespace canopy::symbolize {
namespace {

// An inlined or out-of-line instance points at its abstract definition
// (DW_AT_abstract_origin), a definition outside its class or namespace at its
// declaration (DW_AT_specification); the declaration sits among the scopes that
// qualify the name. Bounded: a corrupt file may hold a cycle.
Dwarf_Die declaration_of(Dwarf_Die die) {
  for (int hop = 0; hop < 8; ++hop) {
    Dwarf_Attribute attribute;
    Dwarf_Die next;
    if (dwarf_formref_die(dwarf_attr(&die, DW_AT_abstract_origin, &attribute), &next) == nullptr &&
        dwarf_formref_die(dwarf_attr(&die, DW_AT_specification, &attribute), &next) == nullptr) {
      break;
    }
    die = next;
  }
  return die;
}

std::string qualified_die_name(Dwarf_Die* die, const char* name) {
  Dwarf_Die declaration = declaration_of(*die);
  Dwarf_Die* raw_scopes = nullptr;
  int scope_count = dwarf_getscopes_die(&declaration, &raw_scopes);
  ScopeArray scopes(raw_scopes);
  std::string qualified;
  // scopes[0] is the declaration itself; the unit is last.
  for (int i = scope_count - 1; i >= 1; --i) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
        tag != DW_TAG_union_type) {
      continue;
    }
    const char* scope_name = dwarf_diename(&scopes[i]);
    // As the demangler writes them.
    qualified += scope_name != nullptr ? scope_name
                 : tag == DW_TAG_namespace ? "(anonymous namespace)"
                                           : "{unnamed type}";
    qualified += "::";
  }
  return qualified + name;
}

}  // namespace

std::string scope_function_name(Dwarf_Die* die) {
  // dwarf_attr_integrate follows DW_AT_abstract_origin and DW_AT_specification.
  Dwarf_Attribute attribute;
  const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attribute));
  if (linkage == nullptr) {
    linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attribute));
  }
  if (linkage != nullptr) {
    std::string demangled = demangle_symbol(linkage);
    if (demangled != linkage) {
      return demangled;
    }
  }
  // A linkage name that is not C++'s is an asm label (glibc's malloc is
  // "__GI___libc_malloc"): the name the source gave is the one to show.
  if (const char* name = dwarf_diename(die)) {
    return qualified_die_name(die, name);
  }
  return linkage != nullptr ? linkage : "";
}

}  // namespace canopy::symbolize
