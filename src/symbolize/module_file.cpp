#include "symbolize/module_file.h"

#include <elfutils/debuginfod.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <span>

#include "common/scoped_resource.h"
#include "common/vdso_image.h"
#include "symbolize/build_id.h"

namespace canopy::symbolize {
namespace {

// libdwfl keeps a pointer to its callbacks for the life of each Dwfl. The module is
// reported from an open fd, so find_elf is not asked; find_debuginfo is, when the file
// has no DWARF of its own. A null path is libdwfl's default, ":.debug:/usr/lib/debug".
// (dwfl_standard_find_debuginfo also asks a debuginfod server when DEBUGINFOD_URLS is
// set: the user's choice, as for gdb and perf.)
char* module_debuginfo_path = nullptr;
const Dwfl_Callbacks kModuleCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &module_debuginfo_path,
};

std::string lowercase_hex(std::string hex) {
  std::transform(hex.begin(), hex.end(), hex.begin(), [](unsigned char c) { return std::tolower(c); });
  return hex;
}

// The section headers, and every section they describe, inside the file. libelf reads a
// file cut short (a copy interrupted, a disk that filled) as one with no sections at
// all, and libdwfl would still find names through the program headers; what is left of
// the file is not the object that was loaded, so it gives nothing.
bool sections_in_file(Dwfl_Module* module, uint64_t file_bytes) {
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(module, &bias);
  GElf_Ehdr header;
  if (elf == nullptr || gelf_getehdr(elf, &header) == nullptr) {
    return false;
  }
  // e_shnum, not elf_getshdrnum: that is the count libelf could read, 0 when cut off.
  // 0 with an offset is the extended numbering, whose count is in section 0.
  size_t header_count = header.e_shnum;
  if (header_count == 0 && header.e_shoff != 0 && (elf_getshdrnum(elf, &header_count) != 0 || header_count == 0)) {
    return false;
  }
  if (header_count == 0) {
    return true;  // no section headers at all (sstrip): the program headers are the object
  }
  if (header.e_shentsize == 0 || header.e_shoff > file_bytes ||
      (file_bytes - header.e_shoff) / header.e_shentsize < header_count) {
    return false;
  }
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr; section = elf_nextscn(elf, section)) {
    GElf_Shdr section_header;
    if (gelf_getshdr(section, &section_header) == nullptr) {
      return false;
    }
    if (section_header.sh_type != SHT_NOBITS &&
        (section_header.sh_offset > file_bytes || file_bytes - section_header.sh_offset < section_header.sh_size)) {
      return false;
    }
  }
  return true;
}

// The vDSO has no file: this process's image, in a memory file for libdwfl. It is the
// recorded processes' when the recording was made under this kernel, which the
// build-id check tells; under another kernel it names nothing.
ScopedFd vdso_file() {
  std::span<const unsigned char> image = vdso_image();
  if (image.empty()) {
    return ScopedFd();
  }
  ScopedFd fd(::memfd_create("canopy-vdso", MFD_CLOEXEC));
  if (!fd || ::write(fd.get(), image.data(), image.size()) != static_cast<ssize_t>(image.size())) {
    return ScopedFd();
  }
  return fd;
}

// The object of build-id `hex` (lowercase) as a debug file: where Debian's -dbgsym
// packages put it, else from a debuginfod server when DEBUGINFOD_URLS names one (as gdb
// and perf ask). Its symbols and DWARF are those of the build that was recorded, for a
// file that is gone or was replaced since: a library upgraded during the run, a
// recording read on another machine.
ScopedFd debug_file_by_build_id(const std::string& hex) {
  if (hex.size() < 4) {
    return ScopedFd();
  }
  const std::string installed = "/usr/lib/debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
  ScopedFd fd(::open(installed.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  const char* servers = std::getenv("DEBUGINFOD_URLS");
  if (fd || servers == nullptr || *servers == '\0') {
    return fd;
  }
  debuginfod_client* client = debuginfod_begin();
  if (client == nullptr) {
    return ScopedFd();
  }
  // Length 0: the build-id is given as a hex string. A cached copy, or a download.
  int found = debuginfod_find_debuginfo(client, reinterpret_cast<const unsigned char*>(hex.c_str()), 0, nullptr);
  debuginfod_end(client);
  return found >= 0 ? ScopedFd(found) : ScopedFd();
}

}  // namespace

ModuleFile::ModuleFile(const ModuleRef& ref) {
  state_ = load(ref);
  if (state_ != ModuleState::kResolved) {
    module_ = nullptr;
    dwfl_.reset();  // nothing will be looked up: free the file's mapping now
  }
}

ModuleState ModuleFile::load(const ModuleRef& ref) {
  // O_NONBLOCK: a path that has become a FIFO must not hang the report.
  ScopedFd fd = ref.path == kVdsoMapName ? vdso_file()
                                          : ScopedFd(::open(ref.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  const ModuleState state = fd ? load_file(std::move(fd), ref) : ModuleState::kMissing;
  if (state != ModuleState::kMissing && state != ModuleState::kBuildIdMismatch) {
    return state;
  }
  // Found by its build-id instead; the state says why the path itself did not serve.
  ScopedFd debug_file = debug_file_by_build_id(lowercase_hex(ref.build_id_hex));
  return debug_file && load_file(std::move(debug_file), ref) == ModuleState::kResolved ? ModuleState::kResolved
                                                                                        : state;
}

ModuleState ModuleFile::load_file(ScopedFd fd, const ModuleRef& ref) {
  struct stat file_stat {};
  if (::fstat(fd.get(), &file_stat) != 0 || !S_ISREG(file_stat.st_mode)) {
    return ModuleState::kNotElf;
  }
  dwfl_.reset(dwfl_begin(&kModuleCallbacks));
  if (!dwfl_) {
    return ModuleState::kNotElf;
  }
  // Base 0, plus p_vaddr: a shared object sits at its link-time addresses, as an
  // executable does, so rel_pc needs no translation.
  module_ = dwfl_report_elf(dwfl_.get(), ref.path.c_str(), ref.path.c_str(), fd.get(), 0, true);
  if (module_ == nullptr) {
    return ModuleState::kNotElf;  // the fd is still ours when the report fails
  }
  fd.release();  // libdwfl's now: dwfl_end closes it
  dwfl_report_end(dwfl_.get(), nullptr, nullptr);
  if (!sections_in_file(module_, static_cast<uint64_t>(file_stat.st_size))) {
    return ModuleState::kNotElf;
  }

  const unsigned char* bits = nullptr;
  GElf_Addr note_vaddr = 0;
  int size = dwfl_module_build_id(module_, &bits, &note_vaddr);
  if (size < 0) {
    return ModuleState::kNotElf;  // malformed notes
  }
  std::string file_build_id = build_id_hex(bits, static_cast<size_t>(size));
  // An object recorded without a build-id that has one now is another file too.
  if (file_build_id != lowercase_hex(ref.build_id_hex)) {
    return ModuleState::kBuildIdMismatch;
  }
  return ModuleState::kResolved;
}

const SymbolIndex& ModuleFile::symbols() {
  if (!symbols_) {
    symbols_ = std::make_unique<SymbolIndex>(module_);
  }
  return *symbols_;
}

UnitIndex& ModuleFile::units() {
  if (!units_) {
    units_ = std::make_unique<UnitIndex>(module_);
  }
  return *units_;
}

UnitFunctions& ModuleFile::functions_of(Dwarf_Die* unit) {
  std::unique_ptr<UnitFunctions>& functions = unit_functions_[dwarf_dieoffset(unit)];
  if (!functions) {
    functions = std::make_unique<UnitFunctions>(unit);
  }
  return *functions;
}

}  // namespace canopy::symbolize
