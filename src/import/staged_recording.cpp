#include "import/staged_recording.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace canopy::importers {
namespace {

Error write_error(const std::string& path, int error) {
  return Error{"cannot write '" + path + "': " + std::strerror(error)};
}

}  // namespace

Result<StagedRecording> StagedRecording::create(const std::string& path, bool force) {
  if (!force && ::access(path.c_str(), F_OK) == 0) {
    return Error{"cannot write '" + path + "': file exists (use --force to replace it)"};
  }
  StagedRecording staged;
  staged.path_ = path;
  staged.force_ = force;
  staged.temporary_ = path + ".tmp-" + std::to_string(::getpid());
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
  bool placed = false;
  if (!force_) {
    // link(2) fails when the destination appeared since create(): a file we were not
    // asked to replace stays. A file system without hard links falls back to rename.
    if (::link(temporary_.c_str(), path_.c_str()) == 0) {
      ::unlink(temporary_.c_str());
      placed = true;
    } else if (errno == EEXIST) {
      discard();
      return Error{"cannot write '" + path_ + "': file exists (use --force to replace it)"};
    }
  } else {
    // The WAL of a replaced recording (its recorder was killed) would be replayed
    // into the new file by the next reader.
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
      ::unlink((path_ + suffix).c_str());
    }
  }
  if (!placed && ::rename(temporary_.c_str(), path_.c_str()) != 0) {
    int error = errno;
    discard();
    return write_error(path_, error);
  }
  temporary_.clear();
  return Ok{};
}

}  // namespace canopy::importers
