#include "probe/elf_load_bias.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "common/scoped_resource.h"

namespace canopy::probe {

uint64_t elf_load_bias(const std::string& path, uint64_t map_start, uint64_t file_offset) {
  const uint64_t assumed = map_start - file_offset;
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  Elf64_Ehdr header;
  if (!fd || ::pread(fd.get(), &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 || header.e_phnum > 4096) {
    return assumed;
  }
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  auto bytes = static_cast<ssize_t>(segments.size() * sizeof(Elf64_Phdr));
  if (::pread(fd.get(), segments.data(), static_cast<size_t>(bytes), static_cast<off_t>(header.e_phoff)) != bytes) {
    return assumed;
  }
  // The mapping starts at the page holding the segment's first byte: the loader maps
  // p_offset rounded down to a page at p_vaddr rounded down alike.
  for (const Elf64_Phdr& segment : segments) {
    if (segment.p_type != PT_LOAD || segment.p_align == 0) {
      continue;
    }
    uint64_t page_mask = ~(std::min<uint64_t>(segment.p_align, 4096) - 1);
    if ((segment.p_offset & page_mask) <= file_offset && file_offset < segment.p_offset + segment.p_filesz) {
      uint64_t vaddr_at_start = segment.p_vaddr - (segment.p_offset - file_offset);
      return map_start - vaddr_at_start;
    }
  }
  return assumed;
}

}  // namespace canopy::probe
