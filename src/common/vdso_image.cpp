#include "common/vdso_image.h"

#include <elf.h>
#include <sys/auxv.h>

#include <cstddef>
#include <cstring>

namespace canopy {

std::span<const unsigned char> vdso_image() {
  const auto* base = reinterpret_cast<const unsigned char*>(::getauxval(AT_SYSINFO_EHDR));
  if (base == nullptr) {
    return {};
  }
  Elf64_Ehdr header;
  std::memcpy(&header, base, sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64) {
    return {};
  }
  size_t size = header.e_shoff + size_t{header.e_shnum} * header.e_shentsize;
  if (size < sizeof header || size > (size_t{1} << 20)) {
    return {};
  }
  return {base, size};
}

}  // namespace canopy
