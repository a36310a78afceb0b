#include "unwind/object_files.h"

#include <elf.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>

#include <cstring>

#include "common/text.h"
#include "common/vdso_image.h"

namespace canopy::unwind {

std::unique_ptr<ObjectFile> ObjectFile::open(const std::string& path, const std::string& build_id_hex) {
  static const bool version_set = elf_version(EV_CURRENT) != EV_NONE;
  if (!version_set) {
    return nullptr;
  }
  std::unique_ptr<ObjectFile> file(new ObjectFile());
  if (path == kVdsoMapName) {
    std::span<const unsigned char> vdso = vdso_image();
    file->image_.assign(vdso.begin(), vdso.end());  // libelf may write to what it reads
    if (file->image_.empty()) {
      return nullptr;
    }
    file->elf_ = elf_memory(reinterpret_cast<char*>(file->image_.data()), file->image_.size());
  } else if (!path.empty() && path[0] == '/') {
    file->fd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file->fd_) {
      return nullptr;
    }
    file->elf_ = elf_begin(file->fd_.get(), ELF_C_READ, nullptr);
  }
  if (file->elf_ == nullptr || elf_kind(file->elf_) != ELF_K_ELF || !file->read_layout()) {
    return nullptr;
  }
  if (!build_id_hex.empty() && path != kVdsoMapName) {
    const void* bits = nullptr;
    ssize_t size = dwelf_elf_gnu_build_id(file->elf_, &bits);
    if (size <= 0 || hex_of(static_cast<const unsigned char*>(bits), static_cast<size_t>(size)) != build_id_hex) {
      return nullptr;
    }
  }
  file->find_cfi_by_its_table();
  return file;
}

// libdw (0.188, Debian 12's) pairs .eh_frame with the sorted table of .eh_frame_hdr
// only when that section comes first in the section headers. gold puts it after (LLVM's
// libraries and tools are linked so: libLLVM, clang, lld), and then each lookup scans
// .eh_frame from its start, keeping every entry it passes: 13 to 25 ms for one frame in
// libLLVM, again in each process's session. Swapping the two sections' headers puts the
// table first; both keep their own contents, names and addresses. The headers changed
// are libelf's copies (read with ELF_C_READ), never the file, and only the unwinder
// reads them.
void ObjectFile::find_cfi_by_its_table() {
  size_t names = 0;
  if (elf_getshdrstrndx(elf_, &names) != 0) {
    return;
  }
  Elf_Scn* eh_frame = nullptr;
  GElf_Shdr eh_frame_header{};
  for (Elf_Scn* section = elf_nextscn(elf_, nullptr); section != nullptr; section = elf_nextscn(elf_, section)) {
    GElf_Shdr header;
    const char* name = gelf_getshdr(section, &header) != nullptr ? elf_strptr(elf_, names, header.sh_name) : nullptr;
    if (name != nullptr && std::strcmp(name, ".eh_frame") == 0) {
      eh_frame = section;
      eh_frame_header = header;
    } else if (name != nullptr && std::strcmp(name, ".eh_frame_hdr") == 0) {
      if (eh_frame != nullptr && gelf_update_shdr(eh_frame, &header) != 0) {
        gelf_update_shdr(section, &eh_frame_header);
      }
      return;
    }
  }
}

bool ObjectFile::read_layout() {
  size_t count = 0;
  if (elf_getphdrnum(elf_, &count) != 0) {
    return false;
  }
  bool first = true;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr segment;
    if (gelf_getphdr(elf_, static_cast<int>(i), &segment) == nullptr || segment.p_type != PT_LOAD) {
      continue;
    }
    if (first) {
      load_start_ = segment.p_vaddr & -segment.p_align;
      first = false;
    }
    load_end_ = std::max<uint64_t>(load_end_, segment.p_vaddr + segment.p_memsz);
  }
  return !first && load_end_ > load_start_;
}

ObjectFile::~ObjectFile() {
  if (elf_ != nullptr) {
    elf_end(elf_);
  }
}

Elf* ObjectFile::new_reference() const { return elf_begin(fd_ ? fd_.get() : -1, ELF_C_READ, elf_); }

std::shared_ptr<const ObjectFile> ObjectFiles::get(const std::string& path, const std::string& build_id_hex) {
  Key key{path, build_id_hex};
  if (auto known = by_key_.find(key); known != by_key_.end()) {
    entries_.splice(entries_.begin(), entries_, known->second);
    return known->second->file;
  }
  std::shared_ptr<const ObjectFile> file = ObjectFile::open(path, build_id_hex);
  entries_.push_front({key, file});
  by_key_[key] = entries_.begin();
  if (entries_.size() > capacity_) {
    by_key_.erase(entries_.back().key);
    entries_.pop_back();
  }
  return file;
}

}  // namespace canopy::unwind
