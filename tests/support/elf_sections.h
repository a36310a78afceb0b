// A 64-bit ELF file's section headers as the file holds them, read without libelf: what
// a test checks of a fixture's layout, or changes in a copy of it.
#pragma once

#include <elf.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace canopy::testing {

struct ElfSection {
  size_t index = 0;  // in the section header table: the order libdw walks them in
  uint64_t address = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

// The section called `name` in the file at `path`; none when there is no such section or
// the file is no 64-bit ELF file.
inline std::optional<ElfSection> elf_section(const std::string& path, const std::string& name) {
  std::ifstream file(path, std::ios::binary);
  Elf64_Ehdr header{};
  file.read(reinterpret_cast<char*>(&header), sizeof header);
  if (!file || header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shstrndx >= header.e_shnum) {
    return std::nullopt;
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  file.seekg(static_cast<std::streamoff>(header.e_shoff));
  file.read(reinterpret_cast<char*>(sections.data()), static_cast<std::streamsize>(sections.size() * sizeof(Elf64_Shdr)));
  const Elf64_Shdr& names = sections[header.e_shstrndx];
  std::string table(names.sh_size, '\0');
  file.seekg(static_cast<std::streamoff>(names.sh_offset));
  file.read(table.data(), static_cast<std::streamsize>(table.size()));
  if (!file) {
    return std::nullopt;
  }
  for (size_t i = 0; i < sections.size(); ++i) {
    if (sections[i].sh_name < table.size() && table.c_str() + sections[i].sh_name == name) {
      return ElfSection{i, sections[i].sh_addr, sections[i].sh_offset, sections[i].sh_size};
    }
  }
  return std::nullopt;
}

}  // namespace canopy::testing
