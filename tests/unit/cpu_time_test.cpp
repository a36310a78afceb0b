#include "probe/cpu_time.h"

#include <gtest/gtest.h>

#include "support/units.h"

namespace canopy::probe {
namespace {

using testing::kNsPerMs;

TEST(SplitCpuTime, SingleThreadedUsesExactRuntime) {
  // 3 ms on CPU: no clock tick sampled yet, schedstat knows it to the ns.
  CpuTimeNs cpu = split_cpu_time(0, 0, 100, 3'141'592, {});
  EXPECT_EQ(cpu.user_ns + cpu.system_ns, 3'141'592);
  EXPECT_EQ(cpu.system_ns, 0);  // the kernel too counts unsampled time as user
}

TEST(SplitCpuTime, SplitsInTickRatio) {
  CpuTimeNs cpu = split_cpu_time(30, 10, 100, 405 * kNsPerMs, {});
  EXPECT_EQ(cpu.user_ns + cpu.system_ns, 405 * kNsPerMs);
  EXPECT_EQ(cpu.system_ns, 405 * kNsPerMs / 4);
}

TEST(SplitCpuTime, DeadThreadsMakeTicksTheLargerFigure) {
  // The leader ran 50 ms; threads that have exited ran 2 s more: only stat knows.
  CpuTimeNs cpu = split_cpu_time(200, 5, 100, 50 * kNsPerMs, {});
  EXPECT_EQ(cpu.user_ns + cpu.system_ns, 2050 * kNsPerMs);
}

TEST(SplitCpuTime, NeverGoesBackwards) {
  CpuTimeNs first = split_cpu_time(1, 1, 100, 20 * kNsPerMs, {});
  EXPECT_EQ(first.user_ns, 10 * kNsPerMs);
  EXPECT_EQ(first.system_ns, 10 * kNsPerMs);
  // The ratio swings to system; user must not shrink, the total still adds up.
  CpuTimeNs second = split_cpu_time(1, 3, 100, 40 * kNsPerMs, first);
  EXPECT_GE(second.user_ns, first.user_ns);
  EXPECT_GE(second.system_ns, first.system_ns);
  EXPECT_EQ(second.user_ns + second.system_ns, 40 * kNsPerMs);
  // And a total that seems to shrink (schedstat of a leader whose threads ran) holds.
  CpuTimeNs third = split_cpu_time(0, 0, 100, 1 * kNsPerMs, second);
  EXPECT_EQ(third.user_ns, second.user_ns);
  EXPECT_EQ(third.system_ns, second.system_ns);
}

}  // namespace
}  // namespace canopy::probe
