#include "import/staged_recording.h"

#include <unistd.h>

#include <utility>

namespace canopy::importers {
Result<StagedRecording> StagedRecording::create(const std::string& path, bool force, const std::string& input) {
  auto target = resolve_output(path, {force, store::kRecordingNeedsRegularFile, {input}});
  if (!target) {
    return target.error();
  }
  StagedRecording staged(StagedOutput(path, *target, force));
  const std::string& temporary = staged.staged_.temporary();
  // force: the temporary name is ours; one left by a killed import of the same PID goes.
  auto writer = store::Writer::create(temporary, /*force=*/true);
  if (!writer) {
    // Writer::create leaves nothing on failure. Its message names the temporary file;
    // the user asked for `path` ("No such file or directory": its folder).
    std::string message = writer.error().message;
    if (size_t at = message.find(temporary); at != std::string::npos) {
      message.replace(at, temporary.size(), path);
    }
    staged.staged_.forget();
    return Error{message};
  }
  staged.writer_.emplace(std::move(*writer));
  return staged;
}

StagedRecording::StagedRecording(StagedRecording&& other) noexcept
    : staged_(std::move(other.staged_)), writer_(std::move(other.writer_)) {
  other.writer_.reset();
}

StagedRecording::~StagedRecording() { discard(); }

void StagedRecording::discard() {
  writer_.reset();  // closes the database before its files go
  staged_.remove({"", "-wal", "-shm", "-journal"});
}

Status StagedRecording::commit() {
  auto finished = writer_->finish();
  writer_.reset();
  if (!finished) {
    discard();
    return finished;
  }
  if (staged_.force()) {
    // The WAL of a replaced recording (its recorder was killed) would be replayed
    // into the new file by the next reader.
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
      ::unlink((staged_.target().path + suffix).c_str());
    }
  }
  if (auto placed = staged_.place(); !placed) {
    discard();
    return placed;
  }
  return Ok{};
}

}  // namespace canopy::importers
