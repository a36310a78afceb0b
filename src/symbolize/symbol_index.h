// A module's ELF symbol table sorted by address, for naming code without DWARF in
// O(log n) a lookup. libdw's dwfl_module_addrinfo reads the whole table at each call:
// naming every frame of a heap profile of gcc's cc1plus, whose table holds tens of
// thousands of symbols, took seconds that way.
#pragma once

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace canopy::symbolize {

class SymbolIndex {
 public:
  // Every defined function symbol of the module (symtab, else dynsym), as libdwfl gives
  // them: at the module's addresses. And the stubs of its procedure linkage table, which
  // no symbol covers, named after the functions they jump to; the rest of each of its
  // sections after the section, "[.plt]".
  explicit SymbolIndex(Dwfl_Module* module);

  struct Symbol {
    uint64_t start = 0;
    uint64_t end = 0;      // start + size; start for a sizeless one
    int binding_rank = 0;  // global 2, weak 1, local 0; a PLT section's own -1
    std::string name = "";
    // A stub of the procedure linkage table (plt_stubs.h): `name` is the function it
    // jumps to, which reads "name@plt".
    bool plt_stub = false;
  };

  // The symbol that holds `address`, as dwfl_module_addrinfo finds it (but for the PLT's
  // stubs and sections, which it does not know): of the sized
  // symbols that hold it, the one that starts last; else the sizeless one nearest before
  // it, when no sized symbol starts nearer. Of aliases (symbols that start alike) a
  // global one before a weak one before a local one, then the first in the table. Null
  // when none.
  const Symbol* symbol_at(uint64_t address) const;

 private:
  static constexpr int kStubRank = 2;
  static constexpr int kSectionRank = -1;

  void sort_by_start();
  void add_plt_stubs(Elf* elf, GElf_Addr bias);

  std::vector<Symbol> symbols_;        // by start
  std::vector<uint64_t> ends_so_far_;  // the largest end among symbols_[0..i]
};

}  // namespace canopy::symbolize
