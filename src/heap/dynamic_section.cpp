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

// The relocations that write a symbol's address into a PLT entry, a GOT entry and a
// data word; on another target, none is read.
#if defined(__x86_64__)
constexpr uint32_t kPltSlot = R_X86_64_JUMP_SLOT;
constexpr uint32_t kGotSlot = R_X86_64_GLOB_DAT;
constexpr uint32_t kWordSlot = R_X86_64_64;
#elif defined(__aarch64__)
constexpr uint32_t kPltSlot = R_AARCH64_JUMP_SLOT;
constexpr uint32_t kGotSlot = R_AARCH64_GLOB_DAT;
constexpr uint32_t kWordSlot = R_AARCH64_ABS64;
#else
constexpr uint32_t kPltSlot = ~0u;
constexpr uint32_t kGotSlot = ~0u;
constexpr uint32_t kWordSlot = ~0u;
#endif

}  // namespace

SlotKind slot_kind(const ElfW(Rela)& relocation) {
  const auto type = ELF64_R_TYPE(relocation.r_info);
  if (type == kPltSlot) {
    return SlotKind::kPlt;
  }
  if (type == kGotSlot) {
    return SlotKind::kGot;
  }
  return type == kWordSlot && relocation.r_addend == 0 ? SlotKind::kWord : SlotKind::kNotBound;
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
  // Each standard entry's value by its tag (0: absent), and the two GNU ones read here.
  ElfW(Xword) value[DT_NUM] = {};
  ElfW(Xword) gnu_hash = 0;
  ElfW(Xword) flags_1 = 0;
  for (const ElfW(Dyn)* entry = dynamic; entry->d_tag != DT_NULL; ++entry) {
    if (entry->d_tag >= 0 && entry->d_tag < DT_NUM) {
      value[entry->d_tag] = entry->d_un.d_val;
    } else if (entry->d_tag == DT_GNU_HASH) {
      gnu_hash = entry->d_un.d_ptr;
    } else if (entry->d_tag == DT_FLAGS_1) {
      flags_1 = entry->d_un.d_val;
    }
  }
  tables.has_search_path = value[DT_RUNPATH] != 0 || value[DT_RPATH] != 0;
  tables.no_default_paths = (flags_1 & DF_1_NODEFLIB) != 0;
  if (value[DT_SYMTAB] == 0 || value[DT_STRTAB] == 0) {
    return false;
  }
  tables.symbols = at<ElfW(Sym)>(base, value[DT_SYMTAB]);
  tables.names = at<char>(base, value[DT_STRTAB]);
  tables.symbol_count = value[DT_HASH] != 0 ? count_from_sysv_hash(at<uint32_t>(base, value[DT_HASH]))
                        : gnu_hash != 0     ? count_from_gnu_hash(at<uint32_t>(base, gnu_hash))
                                            : 0;
  // x86-64 and AArch64 relocate with addends (RELA); an object with REL relocations
  // binds nothing this reads. DT_PLTREL absent means RELA, as these targets have.
  if (value[DT_JMPREL] != 0 && (value[DT_PLTREL] == 0 || value[DT_PLTREL] == DT_RELA)) {
    tables.plt_relocations = at<ElfW(Rela)>(base, value[DT_JMPREL]);
    tables.plt_relocation_count = value[DT_PLTRELSZ] / sizeof(ElfW(Rela));
  }
  if (value[DT_RELA] != 0) {
    tables.relocations = at<ElfW(Rela)>(base, value[DT_RELA]);
    tables.relocation_count = value[DT_RELASZ] / sizeof(ElfW(Rela));
  }
  return true;
}

}  // namespace canopy::heap
