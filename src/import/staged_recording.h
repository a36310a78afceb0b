// A recording written under a temporary name beside its destination and renamed into
// place only when complete: an import that fails half-way (a malformed file found late,
// a full disk) leaves no recording behind, and an existing one it was to replace
// (--force) stays as it was. Where it may go is output_path.h's policy, as for every
// output: a recording is a regular file, and never the file it is imported from.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "common/output_path.h"
#include "common/result.h"
#include "common/staged_output.h"
#include "store/writer.h"

namespace canopy::importers {

class StagedRecording {
 public:
  // Refuses an existing `path` unless `force`, and `input` always, before anything is
  // written.
  static Result<StagedRecording> create(const std::string& path, bool force, const std::string& input);
  StagedRecording(StagedRecording&& other) noexcept;
  StagedRecording& operator=(StagedRecording&&) = delete;
  ~StagedRecording();  // without commit(): removes the temporary file

  store::Writer& writer() { return *writer_; }
  // Finishes the recording and renames it into place.
  Status commit();

 private:
  explicit StagedRecording(StagedOutput staged) : staged_(std::move(staged)) {}
  void discard();

  StagedOutput staged_;
  std::optional<store::Writer> writer_;
};

}  // namespace canopy::importers
