// The recording's clock: milliseconds since the epoch, counted on the monotonic clock
// from the wall-clock start, so that a clock step (NTP) during the recording never
// reorders or duplicates ticks.
#pragma once

#include <cstdint>

#include "probe/system.h"

namespace canopy::record {

class RecordingClock {
 public:
  RecordingClock() : epoch_start_ms_(probe::now_epoch_ms()), monotonic_start_ns_(probe::now_monotonic_ns()) {}

  // The recording's start: its meta's start_ms, before which it holds no time.
  int64_t start_ms() const { return epoch_start_ms_; }
  int64_t now_ms() const { return from_monotonic_ns(probe::now_monotonic_ns()); }
  // A kernel timestamp on the monotonic clock (a process event's) on the same scale.
  // The kernel queues events from the moment canopy listens, before the recording
  // starts; an attached tree's fork in between is first seen at the start.
  int64_t from_monotonic_ns(uint64_t ns) const {
    if (ns <= monotonic_start_ns_) {
      return epoch_start_ms_;
    }
    return epoch_start_ms_ + static_cast<int64_t>((ns - monotonic_start_ns_) / 1'000'000);
  }

 private:
  int64_t epoch_start_ms_;
  uint64_t monotonic_start_ns_;
};

}  // namespace canopy::record
