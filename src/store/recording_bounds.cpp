#include "store/recording_bounds.h"

#include <sys/stat.h>

#include <algorithm>

#include "common/text.h"
#include "store/meta.h"

namespace canopy::store {
namespace {

// A recording whose recorder was killed has no end in its meta; nothing in it can be
// later than the last write to the file or its WAL. A day more, since the recorder
// stamps times from the monotonic clock, which a step of the wall clock (NTP) after
// the start does not move.
constexpr int64_t kClockStepSlackMs = 24 * 3600 * 1000;

int64_t modified_ms(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000;
}

Error corrupt(const std::string& path, const std::string& detail) {
  return Error{"cannot open '" + path + "': the recording is corrupt: " + detail};
}

}  // namespace

Result<RecordingBounds> RecordingBounds::of(const std::string& path, const std::map<std::string, std::string>& meta,
                                            const ProcessIds& ids) {
  RecordingBounds bounds;
  // Absent, a bound is open: recordings made by tests and tools may have no times.
  for (auto [key, bound] : {std::pair{meta_key(&RecordingMeta::start_ms), &bounds.start_ms},
                            std::pair{meta_key(&RecordingMeta::end_ms), &bounds.end_ms}}) {
    auto it = meta.find(key);
    if (it == meta.end()) {
      continue;
    }
    auto value = parse_int<int64_t>(it->second);
    if (!value) {
      return corrupt(path, std::string("its ") + key + " is not a number: '" + it->second + "'");
    }
    *bound = *value;
  }
  if (meta.contains(meta_key(&RecordingMeta::start_ms)) && !meta.contains(meta_key(&RecordingMeta::end_ms))) {
    bounds.end_ms = std::max(modified_ms(path), modified_ms(path + "-wal")) + kClockStepSlackMs;
  }
  if (bounds.start_ms > bounds.end_ms) {
    return corrupt(path, "it ends (" + std::to_string(bounds.end_ms) + " ms since the epoch) before it starts (" +
                             std::to_string(bounds.start_ms) + ")");
  }
  // The writer numbers processes 1, 2, 3...: readers keep them in vectors by id.
  bounds.processes = ids.count;
  if (ids.count > 0 && (ids.min != 1 || ids.max != ids.count)) {
    return corrupt(path, "its " + std::to_string(ids.count) + " processes have ids " + std::to_string(ids.min) + " to " +
                             std::to_string(ids.max) + ", not 1 to " + std::to_string(ids.count));
  }
  return bounds;
}

std::optional<std::string> RecordingBounds::time_problem(std::string_view what, int64_t t_ms) const {
  if (t_ms >= start_ms && t_ms <= end_ms) {
    return std::nullopt;
  }
  return std::string(what) + " at " + std::to_string(t_ms) + " ms since the epoch, outside the recording's span (" +
         std::to_string(start_ms) + " to " + std::to_string(end_ms) + ")";
}

std::optional<std::string> RecordingBounds::process_problem(std::string_view what, int64_t id) const {
  if (id >= 1 && id <= processes) {
    return std::nullopt;
  }
  return std::string(what) + " of process " + std::to_string(id) + ", which the recording does not have (it has " +
         std::to_string(processes) + ")";
}

}  // namespace canopy::store
