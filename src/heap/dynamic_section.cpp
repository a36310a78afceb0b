#include "heap/dynamic_section.h"

#include <elf.h>

namespace canopy::heap {
namespace {

// The loader rewrites some objects' dynamic entries to addresses (glibc on x86-64 and
// AArch64 does, for the objects it loads) and leaves others as offsets from the load
// bias (the vDSO's, and wherever it keeps the section read-only).
template <typename T>
const T* at(uintptr_t base, ElfW(Addr) pointer) {
  return reinterpret_cast<const T*>(pointer < base ? base + pointer : pointer);
}

// The number of dynamic symbols: the SysV hash table says it; the GNU one says where
// the last chain ends.
size_t count_from_sysv_hash(const uint32_t* hash) { return hash[1]; }

size_t count_from_gnu_hash(const uint32_t* hash) {
  const uint32_t buckets = hash[0];
  const uint32_t first_hashed = hash[1];
  const uint32_t bloom_words = hash[2];
  const auto* bloom = reinterpret_cast<const ElfW(Addr)*>(hash + 4);
  const auto* bucket = reinterpret_cast<const uint32_t*>(bloom + bloom_words);
  const uint32_t* chain = bucket + buckets;
  uint32_t last = 0;
  for (uint32_t i = 0; i < buckets; ++i) {
    last = bucket[i] > last ? bucket[i] : last;
  }
  if (last < first_hashed) {
    return first_hashed;
  }
  while ((chain[last - first_hashed] & 1) == 0) {
    ++last;
  }
  return last + 1;
}

}  // namespace

SlotKind slot_kind(const ElfW(Rela)& relocation) {
  switch (ELF64_R_TYPE(relocation.r_info)) {
#if defined(__x86_64__)
    case R_X86_64_JUMP_SLOT:
      return SlotKind::kPlt;
    case R_X86_64_GLOB_DAT:
      return SlotKind::kGot;
    case R_X86_64_64:
      return relocation.r_addend == 0 ? SlotKind::kWord : SlotKind::kNotBound;
#elif defined(__aarch64__)
    case R_AARCH64_JUMP_SLOT:
      return SlotKind::kPlt;
    case R_AARCH64_GLOB_DAT:
      return SlotKind::kGot;
    case R_AARCH64_ABS64:
      return relocation.r_addend == 0 ? SlotKind::kWord : SlotKind::kNotBound;
#endif
    default:
      return SlotKind::kNotBound;
  }
}

const ElfW(Dyn)* dynamic_of(const dl_phdr_info& object) {
  for (int i = 0; i < object.dlpi_phnum; ++i) {
    if (object.dlpi_phdr[i].p_type == PT_DYNAMIC) {
      return reinterpret_cast<const ElfW(Dyn)*>(object.dlpi_addr + object.dlpi_phdr[i].p_vaddr);
    }
  }
  return nullptr;
}

bool read_dynamic(uintptr_t base, const ElfW(Dyn)* dynamic, DynamicTables& tables) {
  tables = DynamicTables{};
  tables.base = base;
  if (!dynamic) {
    return false;
  }
  size_t plt_bytes = 0;
  size_t relocation_bytes = 0;
  bool plt_is_rela = true;
  for (const ElfW(Dyn)* entry = dynamic; entry->d_tag != DT_NULL; ++entry) {
    switch (entry->d_tag) {
      case DT_SYMTAB:
        tables.symbols = at<ElfW(Sym)>(base, entry->d_un.d_ptr);
        break;
      case DT_STRTAB:
        tables.names = at<char>(base, entry->d_un.d_ptr);
        break;
      case DT_HASH:
        tables.symbol_count = count_from_sysv_hash(at<uint32_t>(base, entry->d_un.d_ptr));
        break;
      case DT_GNU_HASH:
        if (tables.symbol_count == 0) {
          tables.symbol_count = count_from_gnu_hash(at<uint32_t>(base, entry->d_un.d_ptr));
        }
        break;
      case DT_JMPREL:
        tables.plt_relocations = at<ElfW(Rela)>(base, entry->d_un.d_ptr);
        break;
      case DT_PLTRELSZ:
        plt_bytes = entry->d_un.d_val;
        break;
      case DT_PLTREL:
        plt_is_rela = entry->d_un.d_val == DT_RELA;
        break;
      case DT_RELA:
        tables.relocations = at<ElfW(Rela)>(base, entry->d_un.d_ptr);
        break;
      case DT_RELASZ:
        relocation_bytes = entry->d_un.d_val;
        break;
      case DT_RUNPATH:
      case DT_RPATH:
        tables.has_search_path = true;
        break;
      case DT_FLAGS_1:
        tables.no_default_paths = (entry->d_un.d_val & DF_1_NODEFLIB) != 0;
        break;
      default:
        break;
    }
  }
  if (!tables.symbols || !tables.names) {
    return false;
  }
  // x86-64 and AArch64 relocate with addends (RELA); an object with REL relocations
  // binds nothing this reads.
  tables.plt_relocation_count = tables.plt_relocations && plt_is_rela ? plt_bytes / sizeof(ElfW(Rela)) : 0;
  tables.relocation_count = tables.relocations ? relocation_bytes / sizeof(ElfW(Rela)) : 0;
  return true;
}

}  // namespace canopy::heap
