#include "record/recording_clock.h"

#include <gtest/gtest.h>

namespace canopy::record {
namespace {

TEST(RecordingClock, AnEventQueuedBeforeTheStartIsAtTheStart) {
  // The kernel stamped it on the monotonic clock before the recording began: before
  // the clock was made, or at boot.
  uint64_t before = probe::now_monotonic_ns();
  RecordingClock clock;
  EXPECT_EQ(clock.from_monotonic_ns(before), clock.start_ms());
  EXPECT_EQ(clock.from_monotonic_ns(0), clock.start_ms());
}

TEST(RecordingClock, LaterEventsKeepTheirDistanceFromTheStart) {
  RecordingClock clock;
  uint64_t now = probe::now_monotonic_ns();
  int64_t at = clock.from_monotonic_ns(now);
  EXPECT_GE(at, clock.start_ms());
  EXPECT_EQ(clock.from_monotonic_ns(now + 2'500'000'000) - at, 2500);
  EXPECT_GE(clock.now_ms(), at);
}

}  // namespace
}  // namespace canopy::record
