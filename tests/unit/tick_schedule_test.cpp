#include "record/tick_schedule.h"

#include <gtest/gtest.h>

namespace canopy::record {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(TickSchedule, FirstTickOneIntervalAfterTheStart) {
  TickSchedule schedule(1000 * kMs, 10 * kMs);
  EXPECT_FALSE(schedule.due(1009 * kMs));
  EXPECT_EQ(schedule.ns_until_due(1003 * kMs), 7 * kMs);
  EXPECT_TRUE(schedule.due(1010 * kMs));
  EXPECT_EQ(schedule.ns_until_due(1012 * kMs), 0);
}

TEST(TickSchedule, ALateTickDoesNotMoveTheOnesAfter) {
  TickSchedule schedule(0, 10 * kMs);
  schedule.take(13 * kMs);  // taken 3 ms late
  EXPECT_FALSE(schedule.due(19 * kMs));
  EXPECT_EQ(schedule.ns_until_due(13 * kMs), 7 * kMs);
  EXPECT_TRUE(schedule.due(20 * kMs));
}

TEST(TickSchedule, AnOverrunSkipsTheTicksItMissed) {
  TickSchedule schedule(0, 10 * kMs);
  schedule.take(47 * kMs);  // due at 10; 20, 30 and 40 went by during the overrun
  EXPECT_EQ(schedule.ns_until_due(47 * kMs), 3 * kMs);
  schedule.take(50 * kMs);  // exactly on time
  EXPECT_EQ(schedule.ns_until_due(50 * kMs), 10 * kMs);
}

TEST(TickSchedule, TakingBeforeItIsDueChangesNothing) {
  TickSchedule schedule(0, 10 * kMs);
  schedule.take(4 * kMs);
  EXPECT_EQ(schedule.ns_until_due(4 * kMs), 6 * kMs);
}

}  // namespace
}  // namespace canopy::record
