#include "heap/interposed.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>

#include "heap/dynamic_section.h"
#include "heap/stand_aside.h"

namespace canopy::heap {
namespace {

int find_own_object(dl_phdr_info* info, size_t, void* data) {
  auto self = reinterpret_cast<uintptr_t>(&find_own_object);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD && self >= begin && self < begin + segment.p_memsz) {
      read_dynamic(info->dlpi_addr, dynamic_of(*info), *static_cast<DynamicTables*>(data));
      return 1;
    }
  }
  return 0;
}

}  // namespace

void Interposed::read() {
  DynamicTables own;
  dl_iterate_phdr(find_own_object, &own);
  own_base = own.base;
  count = 0;
  for (size_t i = 1; i < own.symbol_count && count < kMax; ++i) {
    const ElfW(Sym)& symbol = own.symbols[i];
    if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_shndx == SHN_UNDEF ||
        ELF64_ST_VISIBILITY(symbol.st_other) != STV_DEFAULT) {
      continue;
    }
    const char* name = own.names + symbol.st_name;
    uintptr_t address = own.base + symbol.st_value;
    void* next = ::dlsym(RTLD_NEXT, name);
    if (next && !another_definition_comes_first(name, reinterpret_cast<void*>(address))) {
      functions[count++] = {name, address, reinterpret_cast<uintptr_t>(next)};
    }
  }
}

int Interposed::index_of(const char* name) const {
  for (int i = 0; i < count; ++i) {
    if (std::strcmp(functions[i].name, name) == 0) {
      return i;
    }
  }
  return -1;
}

}  // namespace canopy::heap
