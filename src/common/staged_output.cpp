#include "common/staged_output.h"

#include <unistd.h>

#include <utility>

namespace canopy {

StagedOutput::StagedOutput(std::string shown, OutputTarget target, bool force)
    : shown_(std::move(shown)), target_(std::move(target)), force_(force) {
  if (target_.kind != OutputTarget::Kind::kStream) {
    temporary_ = target_.path + ".tmp-" + std::to_string(::getpid());
  }
}

StagedOutput::StagedOutput(StagedOutput&& other) noexcept
    : shown_(std::move(other.shown_)),
      target_(std::move(other.target_)),
      force_(other.force_),
      temporary_(std::exchange(other.temporary_, {})) {}

Status StagedOutput::place() {
  RETURN_IF_ERROR(place_output(temporary_, target_, shown_, force_));
  temporary_.clear();
  return Ok{};
}

void StagedOutput::remove(std::initializer_list<const char*> suffixes) {
  if (temporary_.empty()) {
    return;
  }
  for (const char* suffix : suffixes) {
    ::unlink((temporary_ + suffix).c_str());
  }
  temporary_.clear();
}

}  // namespace canopy
