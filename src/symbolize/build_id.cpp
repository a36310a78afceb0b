#include "symbolize/build_id.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "common/scoped_resource.h"
#include "symbolize/elf_handles.h"

namespace canopy::symbolize {

Result<std::string> read_build_id_hex(const std::string& path) {
  // O_NONBLOCK: a path that has become a FIFO must not hang the reader.
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) {
    return Error{"cannot read '" + path + "': " + std::strerror(errno)};
  }
  if (elf_version(EV_CURRENT) == EV_NONE) {
    return Error{"cannot read '" + path + "': libelf: " + elf_errmsg(-1)};
  }
  ScopedElf elf(elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) {
    return Error{"cannot read '" + path + "': not an ELF object"};
  }
  const void* bytes = nullptr;
  ssize_t size = dwelf_elf_gnu_build_id(elf.get(), &bytes);
  if (size < 0) {
    return Error{"cannot read '" + path + "': malformed ELF notes"};
  }
  return build_id_hex(bytes, static_cast<size_t>(size));
}

std::string build_id_hex(const void* bytes, size_t size) {
  static constexpr char kHexDigits[] = "0123456789abcdef";
  const auto* data = static_cast<const uint8_t*>(bytes);
  std::string hex;
  hex.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    hex += kHexDigits[data[i] >> 4];
    hex += kHexDigits[data[i] & 15];
  }
  return hex;
}

}  // namespace canopy::symbolize
