#include "import/staged_recording.h"

#include <unistd.h>

#include <utility>

namespace canopy::importers {
Result<StagedRecording> StagedRecording::create(const std::string& path, bool force, const std::string& input) {
  auto target = resolve_output(path, {force, store::kRecordingNeedsRegularFile, {input}});
  if (!target) {
    return target.error();
  }
  StagedRecording staged;
  staged.path_ = path;
  staged.target_ = *target;
  staged.force_ = force;
  staged.temporary_ = target->path + ".tmp-" + std::to_string(::getpid());
  // force: the temporary name is ours; one left by a killed import of the same PID goes.
  auto writer = store::Writer::create(staged.temporary_, /*force=*/true);
  if (!writer) {
    // Writer::create leaves nothing on failure. Its message names the temporary file;
    // the user asked for `path` ("No such file or directory": its folder).
    std::string message = writer.error().message;
    if (size_t at = message.find(staged.temporary_); at != std::string::npos) {
      message.replace(at, staged.temporary_.size(), path);
    }
    staged.temporary_.clear();
    return Error{message};
  }
  staged.writer_.emplace(std::move(*writer));
  return staged;
}

StagedRecording::StagedRecording(StagedRecording&& other) noexcept
    : path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      force_(other.force_),
      temporary_(std::exchange(other.temporary_, {})),
      writer_(std::move(other.writer_)) {
  other.writer_.reset();
}

StagedRecording::~StagedRecording() { discard(); }

void StagedRecording::discard() {
  writer_.reset();  // closes the database before its files go
  if (!temporary_.empty()) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      ::unlink((temporary_ + suffix).c_str());
    }
    temporary_.clear();
  }
}

Status StagedRecording::commit() {
  auto finished = writer_->finish();
  writer_.reset();
  if (!finished) {
    discard();
    return finished;
  }
  if (force_) {
    // The WAL of a replaced recording (its recorder was killed) would be replayed
    // into the new file by the next reader.
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
      ::unlink((target_.path + suffix).c_str());
    }
  }
  if (auto placed = place_output(temporary_, target_, path_, force_); !placed) {
    discard();
    return placed;
  }
  temporary_.clear();
  return Ok{};
}

}  // namespace canopy::importers
