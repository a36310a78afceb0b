// The object files the unwinder reads CFI from (.eh_frame), opened once and shared by
// every process that maps them: libelf handles, read piecewise with pread rather than
// mapped (a file truncated while mapped would be a SIGBUS in the recorder, not an
// error), checked against the build-id the kernel reported, and kept in a bounded
// cache keyed by path and build-id.
#pragma once

#include <libelf.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/scoped_resource.h"

namespace canopy::unwind {

class ObjectFile {
 public:
  // nullptr when the file cannot be opened as ELF, or its build-id is not `build_id_hex`
  // (rebuilt since it was mapped). "[vdso]" is this process's vDSO: the kernel maps the
  // same image into every 64-bit process.
  static std::unique_ptr<ObjectFile> open(const std::string& path, const std::string& build_id_hex);
  ObjectFile(const ObjectFile&) = delete;
  ObjectFile& operator=(const ObjectFile&) = delete;
  ~ObjectFile();

  // Another reference to the one handle (libelf counts them; each is ended on its own).
  Elf* new_reference() const;
  // Where its loadable segments lie in its own address space: the first PT_LOAD's
  // address aligned down, as libdwfl places a module, and the end of the last.
  uint64_t load_start() const { return load_start_; }
  uint64_t load_end() const { return load_end_; }

 private:
  ObjectFile() = default;
  bool read_layout();
  // Has libdw find each frame's CFI by .eh_frame_hdr's table whatever the linker's order.
  void find_cfi_by_its_table();
  std::vector<unsigned char> image_;  // the vDSO's bytes; a file is read through fd_
  ScopedFd fd_;                       // outlives elf_: libelf reads through it
  Elf* elf_ = nullptr;
  uint64_t load_start_ = 0;
  uint64_t load_end_ = 0;
};

// At most `capacity` files open; the least recently used is closed first (a process
// still unwinding through it keeps its own reference). Failures are remembered too.
class ObjectFiles {
 public:
  explicit ObjectFiles(size_t capacity) : capacity_(capacity) {}
  std::shared_ptr<const ObjectFile> get(const std::string& path, const std::string& build_id_hex);

 private:
  using Key = std::pair<std::string, std::string>;
  struct Entry {
    Key key;
    std::shared_ptr<const ObjectFile> file;
  };
  size_t capacity_;
  std::list<Entry> entries_;  // most recently used first
  std::map<Key, std::list<Entry>::iterator> by_key_;
};

}  // namespace canopy::unwind
