// An output file, written where output_path.h's policy allows. A regular file (new,
// or replaced with --force) appears whole or not at all: written to a temporary file
// beside it, renamed into place by commit(); destroyed without commit(), it leaves
// nothing behind. A character device or FIFO (/dev/null, a pipe) is written through.
// Mode 0600: what canopy writes can hold command lines with secrets.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "common/output_path.h"
#include "common/result.h"
#include "common/scoped_resource.h"
#include "common/staged_output.h"

namespace canopy {

class OutputFile {
 public:
  static Result<OutputFile> create(const std::string& path, const OutputRules& rules);
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  ~OutputFile();

  // Buffered; the first error is kept and returned by commit().
  void write(std::string_view bytes);
  Status commit();

 private:
  explicit OutputFile(StagedOutput staged) : staged_(std::move(staged)) {}
  void flush_buffer();

  StagedOutput staged_;
  ScopedFd fd_;
  std::string buffer_;
  int errno_ = 0;
};

}  // namespace canopy
