// pick_ticks: which ticks a chart draws. The highest total of a range is always
// drawn, each bucket gives at most two points, and short ranges are drawn whole.
#include <gtest/gtest.h>

#include <algorithm>

#include "analyze/downsample.h"

namespace canopy::analyze {
namespace {

std::vector<int64_t> ticks_every(int64_t step, size_t n) {
  std::vector<int64_t> t;
  for (size_t i = 0; i < n; ++i) {
    t.push_back(1000 + static_cast<int64_t>(i) * step);
  }
  return t;
}

TEST(PickTicks, ShortRangeIsDrawnWhole) {
  auto t = ticks_every(100, 10);
  std::vector<double> total(10, 1.0);
  PickedTicks picked = pick_ticks(t, total, 1000, 1900, 20);
  EXPECT_TRUE(picked.exact);
  EXPECT_EQ(picked.indices, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(PickTicks, NeighboursOutsideTheRangeReachTheEdges) {
  auto t = ticks_every(100, 10);
  std::vector<double> total(10, 1.0);
  PickedTicks picked = pick_ticks(t, total, 1250, 1650, 20);  // ticks 3..6 inside
  EXPECT_TRUE(picked.exact);
  EXPECT_EQ(picked.indices, (std::vector<size_t>{2, 3, 4, 5, 6, 7}));
}

TEST(PickTicks, EachBucketKeepsItsHighestAndLowest) {
  // 100 ticks in 4 buckets of 25: bucket b has its low at 25b+3 and its high at 25b+20.
  auto t = ticks_every(10, 100);
  std::vector<double> total(100, 50.0);
  for (size_t b = 0; b < 4; ++b) {
    total[25 * b + 3] = 10.0 + static_cast<double>(b);
    total[25 * b + 20] = 90.0 + static_cast<double>(b);
  }
  PickedTicks picked = pick_ticks(t, total, 1000, 1990, 8);
  EXPECT_FALSE(picked.exact);
  EXPECT_EQ(picked.indices, (std::vector<size_t>{3, 20, 28, 45, 53, 70, 78, 95}));
}

TEST(PickTicks, ANarrowSpikeIsNeverHidden) {
  // One tick in 100,000 holds a spike; drawn in 50 points, it is still there.
  auto t = ticks_every(100, 100'000);
  std::vector<double> total(100'000, 1.0);
  for (size_t i = 0; i < total.size(); ++i) {
    total[i] = static_cast<double>(i % 7);  // noise below the spike
  }
  total[61'234] = 1000.0;
  PickedTicks picked = pick_ticks(t, total, t.front(), t.back(), 50);
  EXPECT_LE(picked.indices.size(), 50u);
  EXPECT_NE(std::find(picked.indices.begin(), picked.indices.end(), 61'234u), picked.indices.end());
  EXPECT_TRUE(std::is_sorted(picked.indices.begin(), picked.indices.end()));
}

TEST(PickTicks, GapsLeaveBucketsEmpty) {
  // Ticks at 0..9 and 990..999 (the recorder was stopped in between).
  std::vector<int64_t> t;
  for (int64_t i = 0; i < 10; ++i) {
    t.push_back(i);
  }
  for (int64_t i = 990; i < 1000; ++i) {
    t.push_back(i);
  }
  std::vector<double> total(t.size(), 0.0);
  total[5] = 3.0;
  total[15] = 4.0;
  PickedTicks picked = pick_ticks(t, total, 0, 999, 10);  // 5 buckets of 200 ms
  EXPECT_EQ(picked.indices, (std::vector<size_t>{0, 5, 10, 15}));
}

TEST(PickTicks, EmptyAndOutsideRanges) {
  EXPECT_TRUE(pick_ticks({}, {}, 0, 100, 10).indices.empty());
  auto t = ticks_every(100, 5);  // 1000..1400
  std::vector<double> total(5, 0.0);
  EXPECT_EQ(pick_ticks(t, total, 2000, 3000, 10).indices, (std::vector<size_t>{4}));
  EXPECT_EQ(pick_ticks(t, total, 0, 500, 10).indices, (std::vector<size_t>{0}));
}

}  // namespace
}  // namespace canopy::analyze
