// What a recording's values can be, from the recording itself: its times lie between
// the start and the end its meta states, its process ids run from 1 to the number of
// processes. A file damaged inside a value (a flipped bit on a disk or in a copy),
// where SQLite's own checks cannot see, can hold a time years before the recording
// began, or a process id no process has; the reader refuses those rather than print
// them or index by them.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace canopy::store {

struct RecordingBounds {
  int64_t start_ms = std::numeric_limits<int64_t>::min();
  int64_t end_ms = std::numeric_limits<int64_t>::max();
  int64_t processes = 0;  // ids run from 1 to this

  struct ProcessIds {
    int64_t count = 0;
    int64_t min = 0;
    int64_t max = 0;
  };
  // The bounds the recording at `path` states in its `meta` rows (key to text: a
  // number damaged into text is refused here, where RecordingMeta reads it as absent)
  // and process `ids`, or one
  // line on what about them is itself damaged (a start that is not a number, process
  // ids with gaps).
  static Result<RecordingBounds> of(const std::string& path, const std::map<std::string, std::string>& meta,
                                    const ProcessIds& ids);

  // "WHAT at T ms since the epoch, outside the recording's span (START to END)" when
  // `t_ms` is outside it.
  std::optional<std::string> time_problem(std::string_view what, int64_t t_ms) const;
  // "WHAT of process ID, which the recording does not have (it has N)" likewise.
  std::optional<std::string> process_problem(std::string_view what, int64_t id) const;
};

}  // namespace canopy::store
