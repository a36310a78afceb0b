#include "probe/elf_load_bias.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

#include "common/scoped_resource.h"
#include "common/text.h"
#include "common/vdso_image.h"

namespace canopy::probe {

namespace {

// The program headers of a 64-bit ELF file, with its descriptor; empty when it is none.
std::vector<Elf64_Phdr> program_headers(const std::string& path, ScopedFd& fd) {
  fd.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  Elf64_Ehdr header;
  if (!fd || ::pread(fd.get(), &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 || header.e_phnum > 4096) {
    return {};
  }
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  auto bytes = static_cast<ssize_t>(segments.size() * sizeof(Elf64_Phdr));
  if (::pread(fd.get(), segments.data(), static_cast<size_t>(bytes), static_cast<off_t>(header.e_phoff)) != bytes) {
    return {};
  }
  return segments;
}

// The GNU build-id among a PT_NOTE segment's notes, as lowercase hex; "" when none.
std::string gnu_build_id_in_notes(std::span<const unsigned char> notes) {
  // { u32 namesz, descsz, type; name, padded to 4; desc, padded to 4 }
  size_t at = 0;
  while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
    Elf64_Nhdr note;
    std::memcpy(&note, notes.data() + at, sizeof note);
    size_t name_at = at + sizeof note;
    size_t desc_at = name_at + ((note.n_namesz + 3) & ~size_t{3});
    size_t next = desc_at + ((note.n_descsz + 3) & ~size_t{3});
    if (next > notes.size()) {
      break;
    }
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(notes.data() + name_at, "GNU", 4) == 0) {
      return hex_of(notes.data() + desc_at, note.n_descsz);
    }
    at = next;
  }
  return "";
}

// The build-id of this process's vDSO, from its image in memory.
std::string vdso_build_id_hex() {
  std::span<const unsigned char> image = vdso_image();
  Elf64_Ehdr header;
  if (image.size() < sizeof header) {
    return "";
  }
  std::memcpy(&header, image.data(), sizeof header);
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phoff > image.size() ||
      (image.size() - header.e_phoff) / sizeof(Elf64_Phdr) < header.e_phnum) {
    return "";
  }
  for (size_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment, image.data() + header.e_phoff + i * sizeof segment, sizeof segment);
    if (segment.p_type == PT_NOTE && segment.p_offset <= image.size() &&
        segment.p_filesz <= image.size() - segment.p_offset) {
      if (std::string id = gnu_build_id_in_notes(image.subspan(segment.p_offset, segment.p_filesz)); !id.empty()) {
        return id;
      }
    }
  }
  return "";
}

}  // namespace

std::string elf_build_id_hex(const std::string& path) {
  if (path == kVdsoMapName) {
    return vdso_build_id_hex();
  }
  ScopedFd fd;
  for (const Elf64_Phdr& segment : program_headers(path, fd)) {
    if (segment.p_type != PT_NOTE || segment.p_filesz > (1 << 16)) {
      continue;
    }
    std::vector<unsigned char> notes(segment.p_filesz);
    if (::pread(fd.get(), notes.data(), notes.size(), static_cast<off_t>(segment.p_offset)) !=
        static_cast<ssize_t>(notes.size())) {
      continue;
    }
    if (std::string id = gnu_build_id_in_notes(notes); !id.empty()) {
      return id;
    }
  }
  return "";
}

uint64_t elf_load_bias(const std::string& path, uint64_t map_start, uint64_t file_offset) {
  const uint64_t assumed = map_start - file_offset;
  ScopedFd fd;
  std::vector<Elf64_Phdr> segments = program_headers(path, fd);
  // The loader maps each segment from p_offset rounded down to a page, at p_vaddr
  // rounded down alike. One page of the file may hold the end of one segment and the
  // start of the next (lld packs them so: rustc links with it), and so be mapped twice,
  // at two addresses. Of the segments that hold the mapped offset, the code one is this
  // mapping's, and then the one whose mapping starts there; one that only holds it
  // serves for a mapping split inside its segment (mprotect).
  const Elf64_Phdr* best = nullptr;
  int best_rank = -1;
  for (const Elf64_Phdr& segment : segments) {
    if (segment.p_type != PT_LOAD || segment.p_align == 0) {
      continue;
    }
    uint64_t first_page = segment.p_offset & ~(std::min<uint64_t>(segment.p_align, 4096) - 1);
    if (file_offset < first_page || file_offset >= segment.p_offset + segment.p_filesz) {
      continue;
    }
    int rank = ((segment.p_flags & PF_X) != 0 ? 2 : 0) + (first_page == file_offset ? 1 : 0);
    if (rank > best_rank) {
      best = &segment;
      best_rank = rank;
    }
  }
  if (!best) {
    return assumed;
  }
  uint64_t vaddr_at_start = best->p_vaddr - (best->p_offset - file_offset);
  return map_start - vaddr_at_start;
}

}  // namespace canopy::probe
