// An output file that appears whole or not at all: written to a temporary file beside
// it, then renamed into place by commit(). Destroyed without commit(), it leaves
// nothing behind. Mode 0600: what canopy writes can hold command lines with secrets.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "common/scoped_resource.h"

namespace canopy {

class AtomicFile {
 public:
  static Result<AtomicFile> create(const std::string& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();

  // Buffered; the first error is kept and returned by commit().
  void write(std::string_view bytes);
  Status commit();

 private:
  AtomicFile() = default;
  void flush_buffer();

  std::string path_;
  std::string temporary_;
  ScopedFd fd_;
  std::string buffer_;
  int errno_ = 0;
};

}  // namespace canopy
