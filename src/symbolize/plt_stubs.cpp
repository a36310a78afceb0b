#include "symbolize/plt_stubs.h"

#include <elf.h>

#include <cstring>
#include <optional>
#include <unordered_map>

namespace canopy::symbolize {
namespace {

bool is_plt_section(const char* name) {
  return name != nullptr &&
         (std::strcmp(name, ".plt") == 0 || std::strcmp(name, ".plt.sec") == 0 || std::strcmp(name, ".plt.got") == 0);
}

// What a slot of the global offset table is filled with as the object loads.
struct SlotFunction {
  std::string function;
  uint64_t resolver = 0;
};

// The slots of the object's relocations that hold a function's address, by the slot's
// address (the ELF's own).
std::unordered_map<uint64_t, SlotFunction> slot_functions(Elf* elf) {
  std::unordered_map<uint64_t, SlotFunction> slots;
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr; section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_RELA) {
      continue;
    }
    Elf_Scn* symbols_section = elf_getscn(elf, header.sh_link);
    GElf_Shdr symbols_header;
    Elf_Data* relocations = elf_getdata(section, nullptr);
    Elf_Data* symbols = symbols_section != nullptr ? elf_getdata(symbols_section, nullptr) : nullptr;
    if (relocations == nullptr || symbols == nullptr || gelf_getshdr(symbols_section, &symbols_header) == nullptr) {
      continue;
    }
    const size_t count = header.sh_entsize > 0 ? header.sh_size / header.sh_entsize : 0;
    for (size_t i = 0; i < count; ++i) {
      GElf_Rela relocation;
      if (gelf_getrela(relocations, static_cast<int>(i), &relocation) == nullptr) {
        break;
      }
      const auto type = GELF_R_TYPE(relocation.r_info);
      if (type == R_X86_64_IRELATIVE) {
        slots[relocation.r_offset] = {"", static_cast<uint64_t>(relocation.r_addend)};
        continue;
      }
      GElf_Sym symbol;
      if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
          gelf_getsym(symbols, static_cast<int>(GELF_R_SYM(relocation.r_info)), &symbol) == nullptr) {
        continue;
      }
      const char* name = elf_strptr(elf, symbols_header.sh_link, symbol.st_name);
      if (name != nullptr && name[0] != '\0') {
        slots[relocation.r_offset] = {name, 0};
      }
    }
  }
  return slots;
}

// Calls `visit(header, data, name)` for each PLT section with bytes in the file.
template <typename Visit>
void for_each_plt_section(Elf* elf, Visit visit) {
  size_t names_index = 0;
  if (elf_getshdrstrndx(elf, &names_index) != 0) {
    return;
  }
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr; section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_PROGBITS ||
        (header.sh_flags & SHF_EXECINSTR) == 0) {
      continue;
    }
    const char* name = elf_strptr(elf, names_index, header.sh_name);
    if (!is_plt_section(name)) {
      continue;
    }
    Elf_Data* data = elf_getdata(section, nullptr);
    if (data == nullptr || data->d_buf == nullptr || data->d_size < header.sh_size) {
      continue;
    }
    visit(header, static_cast<const unsigned char*>(data->d_buf), name);
  }
}

}  // namespace

std::optional<uint64_t> plt_stub_slot(const unsigned char* stub, size_t size, uint64_t address) {
  static constexpr unsigned char kEndbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
  size_t at = 0;
  if (size >= sizeof kEndbr64 && std::memcmp(stub, kEndbr64, sizeof kEndbr64) == 0) {
    at += sizeof kEndbr64;
  }
  if (at < size && stub[at] == 0xf2) {
    ++at;
  }
  constexpr size_t kJumpBytes = 6;  // ff 25, then the displacement
  if (at + kJumpBytes > size || stub[at] != 0xff || stub[at + 1] != 0x25) {
    return std::nullopt;
  }
  int32_t displacement = 0;
  std::memcpy(&displacement, stub + at + 2, sizeof displacement);
  return address + at + kJumpBytes + static_cast<int64_t>(displacement);
}

PltTable read_plt(Elf* elf, GElf_Addr bias) {
  PltTable table;
  GElf_Ehdr elf_header;
  const bool stubs_read = gelf_getehdr(elf, &elf_header) != nullptr && elf_header.e_machine == EM_X86_64;
  std::optional<std::unordered_map<uint64_t, SlotFunction>> slots;  // read with the first section
  for_each_plt_section(elf, [&](const GElf_Shdr& header, const unsigned char* bytes, const char* name) {
    table.sections.push_back({header.sh_addr + bias, header.sh_addr + bias + header.sh_size, name});
    if (!stubs_read) {
      return;
    }
    if (!slots) {
      slots = slot_functions(elf);
    }
    const uint64_t entry_size = header.sh_entsize > 0 ? header.sh_entsize : 16;
    for (uint64_t offset = 0; offset + entry_size <= header.sh_size; offset += entry_size) {
      const uint64_t address = header.sh_addr + offset;
      auto slot = plt_stub_slot(bytes + offset, entry_size, address);
      auto function = slot ? slots->find(*slot) : slots->end();
      if (function != slots->end()) {
        table.stubs.push_back(
            {address + bias, address + bias + entry_size, function->second.function, function->second.resolver});
      }
    }
  });
  return table;
}

}  // namespace canopy::symbolize
