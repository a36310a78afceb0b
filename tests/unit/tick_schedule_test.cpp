#include "record/tick_schedule.h"

#include <gtest/gtest.h>

#include "support/units.h"

namespace canopy::record {
namespace {

using testing::kNsPerMs;

TEST(TickSchedule, FirstTickOneIntervalAfterTheStart) {
  TickSchedule schedule(1000 * kNsPerMs, 10 * kNsPerMs);
  EXPECT_FALSE(schedule.due(1009 * kNsPerMs));
  EXPECT_EQ(schedule.ns_until_due(1003 * kNsPerMs), 7 * kNsPerMs);
  EXPECT_TRUE(schedule.due(1010 * kNsPerMs));
  EXPECT_EQ(schedule.ns_until_due(1012 * kNsPerMs), 0);
}

TEST(TickSchedule, AnAttachedTreeIsTickedAtTheStartThenEveryInterval) {
  TickSchedule schedule(1000 * kNsPerMs, 10 * kNsPerMs, TickSchedule::FirstTick::kAtStart);
  EXPECT_TRUE(schedule.due(1000 * kNsPerMs));
  schedule.take(1001 * kNsPerMs);
  EXPECT_FALSE(schedule.due(1009 * kNsPerMs));
  EXPECT_TRUE(schedule.due(1010 * kNsPerMs));
}

TEST(TickSchedule, ALateTickDoesNotMoveTheOnesAfter) {
  TickSchedule schedule(0, 10 * kNsPerMs);
  schedule.take(13 * kNsPerMs);  // taken 3 ms late
  EXPECT_FALSE(schedule.due(19 * kNsPerMs));
  EXPECT_EQ(schedule.ns_until_due(13 * kNsPerMs), 7 * kNsPerMs);
  EXPECT_TRUE(schedule.due(20 * kNsPerMs));
}

TEST(TickSchedule, AnOverrunSkipsTheTicksItMissed) {
  TickSchedule schedule(0, 10 * kNsPerMs);
  schedule.take(47 * kNsPerMs);  // due at 10; 20, 30 and 40 went by during the overrun
  EXPECT_EQ(schedule.ns_until_due(47 * kNsPerMs), 3 * kNsPerMs);
  schedule.take(50 * kNsPerMs);  // exactly on time
  EXPECT_EQ(schedule.ns_until_due(50 * kNsPerMs), 10 * kNsPerMs);
}

TEST(TickSchedule, TakingBeforeItIsDueChangesNothing) {
  TickSchedule schedule(0, 10 * kNsPerMs);
  schedule.take(4 * kNsPerMs);
  EXPECT_EQ(schedule.ns_until_due(4 * kNsPerMs), 6 * kNsPerMs);
}

}  // namespace
}  // namespace canopy::record
