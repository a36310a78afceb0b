// A loaded object's dynamic section, read as the loader mapped it: its symbols and
// their names, the relocations that bind its slots (GOT entries) to definitions, and
// the search paths it gives dlopen. No allocation: read from the library's own paths.
#pragma once

#include <link.h>

#include <cstddef>
#include <cstdint>

namespace canopy::heap {

struct DynamicTables {
  uintptr_t base = 0;  // the object's load bias
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  size_t symbol_count = 0;  // from its hash table; 0 when it has none
  const ElfW(Rela)* plt_relocations = nullptr;
  size_t plt_relocation_count = 0;
  const ElfW(Rela)* relocations = nullptr;
  size_t relocation_count = 0;
  bool has_search_path = false;   // DT_RUNPATH or DT_RPATH: dlopen searches them for its calls
  bool no_default_paths = false;  // DF_1_NODEFLIB: its calls' dlopen skips the system's paths
};

// The object's PT_DYNAMIC, or null (the vDSO's has one; a static program has none).
const ElfW(Dyn)* dynamic_of(const dl_phdr_info& object);

// False when the object has no dynamic section, or no symbol table in it.
bool read_dynamic(uintptr_t base, const ElfW(Dyn)* dynamic, DynamicTables& tables);

// A slot that a relocation fills with the address of a named symbol: a PLT entry's
// (lazily, on its first call, unless bound at load), a GOT entry's, or a data word's.
struct BoundSlot {
  const char* name = nullptr;
  uintptr_t* slot = nullptr;
  bool lazy = false;  // a PLT entry's: it may still hold the way to the loader's resolver
};

// The relocation types that write a symbol's address: how the slot is filled, or
// kNotBound.
enum class SlotKind { kNotBound, kPlt, kGot, kWord };
SlotKind slot_kind(const ElfW(Rela)& relocation);

// Calls visit(const BoundSlot&) for each relocation of the object's that binds a slot
// to a named symbol's address.
template <typename Visit>
void for_each_bound_slot(const DynamicTables& tables, Visit&& visit) {
  auto visit_all = [&](const ElfW(Rela)* relocations, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      const ElfW(Rela)& relocation = relocations[i];
      SlotKind kind = slot_kind(relocation);
      size_t symbol = ELF64_R_SYM(relocation.r_info);
      if (kind == SlotKind::kNotBound || symbol == 0) {
        continue;
      }
      visit(BoundSlot{tables.names + tables.symbols[symbol].st_name,
                      reinterpret_cast<uintptr_t*>(tables.base + relocation.r_offset), kind == SlotKind::kPlt});
    }
  };
  visit_all(tables.plt_relocations, tables.plt_relocation_count);
  visit_all(tables.relocations, tables.relocation_count);
}

}  // namespace canopy::heap
