#include "symbolize/symbol_index.h"

#include <elf.h>
#include <gelf.h>

#include <algorithm>

#include "symbolize/plt_stubs.h"

namespace canopy::symbolize {
namespace {

int binding_rank(unsigned char binding) {
  switch (binding) {
    case STB_GLOBAL:
      return 2;
    case STB_WEAK:
      return 1;
    default:
      return 0;
  }
}

// Code, or what may name code: assembler labels are untyped.
bool names_code(const GElf_Sym& symbol) {
  unsigned char type = GELF_ST_TYPE(symbol.st_info);
  return symbol.st_shndx != SHN_UNDEF && symbol.st_shndx != SHN_ABS &&
         (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE);
}

}  // namespace

SymbolIndex::SymbolIndex(Dwfl_Module* module) {
  int count = dwfl_module_getsymtab(module);
  for (int i = 1; i < count; ++i) {  // entry 0 is the null symbol
    GElf_Sym symbol;
    GElf_Addr address = 0;
    const char* name = dwfl_module_getsym_info(module, i, &symbol, &address, nullptr, nullptr, nullptr);
    if (name == nullptr || name[0] == '\0' || !names_code(symbol)) {
      continue;
    }
    symbols_.push_back({address, address + symbol.st_size, binding_rank(GELF_ST_BIND(symbol.st_info)), name});
  }
  sort_by_start();
  GElf_Addr bias = 0;
  if (Elf* elf = dwfl_module_getelf(module, &bias)) {
    add_plt_stubs(elf, bias);
  }
}

void SymbolIndex::sort_by_start() {
  std::stable_sort(symbols_.begin(), symbols_.end(),
                   [](const Symbol& a, const Symbol& b) { return a.start < b.start; });
  ends_so_far_.clear();
  ends_so_far_.reserve(symbols_.size());
  uint64_t end = 0;
  for (const Symbol& symbol : symbols_) {
    end = std::max(end, symbol.end);
    ends_so_far_.push_back(end);
  }
}

void SymbolIndex::add_plt_stubs(Elf* elf, GElf_Addr bias) {
  const PltTable plt = read_plt(elf, bias);
  std::vector<Symbol> added;
  for (const PltStub& stub : plt.stubs) {
    std::string function = stub.function;
    if (function.empty()) {  // an IFUNC's slot: named after the IFUNC's symbol
      const Symbol* ifunc = symbol_at(stub.resolver + bias);  // of the symbol table: no stub is in yet
      if (ifunc == nullptr) {
        continue;
      }
      function = ifunc->name;
    }
    added.push_back({stub.start, stub.end, kStubRank, function, true});
  }
  // The rest of each section, below any stub that holds an address.
  for (const PltSection& section : plt.sections) {
    added.push_back({section.start, section.end, kSectionRank, "[" + section.name + "]"});
  }
  if (!added.empty()) {
    symbols_.insert(symbols_.end(), added.begin(), added.end());
    sort_by_start();
  }
}

const SymbolIndex::Symbol* SymbolIndex::symbol_at(uint64_t address) const {
  auto after = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                                [](uint64_t a, const Symbol& s) { return a < s.start; });
  if (after == symbols_.begin()) {
    return nullptr;
  }
  const size_t last = static_cast<size_t>(after - symbols_.begin()) - 1;
  // Back from the last symbol that starts at or before the address, while one can still
  // reach it; the first that holds it starts last, and its ties follow it.
  const Symbol* holding = nullptr;
  for (size_t i = last + 1; i-- > 0 && ends_so_far_[i] > address;) {
    const Symbol& symbol = symbols_[i];
    if (holding && symbol.start < holding->start) {
      break;
    }
    // Back through aliases: an earlier one in the table takes the place of a later one.
    if (address < symbol.end && (!holding || symbol.binding_rank >= holding->binding_rank)) {
      holding = &symbol;
    }
  }
  if (holding) {
    return holding;
  }
  const Symbol& nearest = symbols_[last];
  return nearest.end == nearest.start ? &nearest : nullptr;
}

}  // namespace canopy::symbolize
