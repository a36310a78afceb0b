// What is at an output path, and whether a command may write there: one policy for
// every command that writes a file (docs/recording.md, "Output files").
//   nothing there                 created
//   a regular file                replaced whole, and only with --force
//   a character device or a FIFO  written through (/dev/null, a pipe), never replaced;
//                                 refused where only a regular file will do (a recording)
//   a symlink                     followed: what it leads to decides, and is written
//   a directory, anything else    refused
//   an input of the command       refused, --force or not; compared by device and inode,
//                                 so a hard link or a symlink to the input is the input
#pragma once

#include <string>
#include <vector>

#include "common/result.h"

namespace canopy {

struct OutputRules {
  bool force = false;  // the user said --force: a regular file may be replaced
  // Why a character device or FIFO will not do ("a recording must be a regular file");
  // empty: it is written through.
  std::string regular_only;
  std::vector<std::string> inputs;  // files the command reads, as the user named them
};

struct OutputTarget {
  enum class Kind { kNew, kRegular, kStream };
  Kind kind = Kind::kNew;
  // kNew and kRegular: the name to create or replace, symlinks resolved (a rename
  // onto the symlink itself would replace the link). kStream: the path as given.
  std::string path;
};

// Errors read "cannot write 'PATH': why", PATH as the user gave it.
Result<OutputTarget> resolve_output(const std::string& path, const OutputRules& rules);

// Puts the complete file `temporary` (beside it) in place at `target.path`. Without
// force, link(2) rather than rename(2): a file that appeared there since
// resolve_output stays, and the answer says so. `shown` names the output in errors.
Status place_output(const std::string& temporary, const OutputTarget& target, const std::string& shown, bool force);

}  // namespace canopy
