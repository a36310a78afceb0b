// An output written whole or not at all: under a temporary name beside where it goes
// (its name and ".tmp-PID"), then put in place by place() (place_output). What is
// written there, and when, is the owner's: OutputFile writes bytes, an import writes a
// recording (import/staged_recording.h).
#pragma once

#include <initializer_list>
#include <string>

#include "common/output_path.h"
#include "common/result.h"

namespace canopy {

class StagedOutput {
 public:
  // `shown` names the output in errors, as the user gave it; `target` is where it goes
  // (resolve_output). A kStream target is written through, with no temporary name.
  StagedOutput(std::string shown, OutputTarget target, bool force);
  StagedOutput(StagedOutput&& other) noexcept;  // the temporary file is then other's no more
  StagedOutput& operator=(StagedOutput&&) = delete;
  // Neither places nor removes anything: the owner removes what it wrote (remove()).
  ~StagedOutput() = default;

  const std::string& shown() const { return shown_; }
  const OutputTarget& target() const { return target_; }
  bool force() const { return force_; }
  // Empty when written through, once placed, removed or never made.
  const std::string& temporary() const { return temporary_; }

  // Puts the complete temporary file in place; it is no longer ours then.
  Status place();
  // Removes the temporary file and the files named after it with `suffixes` (a
  // database's journals), if any are there.
  void remove(std::initializer_list<const char*> suffixes = {""});
  // The temporary file was not made: there is nothing to remove.
  void forget() { temporary_.clear(); }

 private:
  std::string shown_;
  OutputTarget target_;
  bool force_ = false;
  std::string temporary_;
};

}  // namespace canopy
