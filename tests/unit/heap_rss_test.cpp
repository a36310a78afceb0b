#include <gtest/gtest.h>

#include "analyze/heap_rss.h"

namespace canopy::analyze {
namespace {

constexpr int64_t kProcess = 7;

RssSeries one_process(std::vector<RssPoint> points) {
  RssSeries series;
  series[kProcess] = std::move(points);
  return series;
}

int64_t rss_bytes_at(const RssSeries& series, int64_t t_ms) {
  auto point = rss_at(series, kProcess, t_ms);
  return point ? point->rss_bytes : -1;
}

// A process read at its exec, by no tick, and at its exit, 1 ms after its exit snapshot:
// its heap's end is beside the read at its exit, not the one from its start.
TEST(HeapRss, AnExitSnapshotIsBesideTheReadAtTheExit) {
  RssSeries series = one_process({{98, 300 << 10, 40 << 10}, {179, 36 << 20, 33 << 20}});
  auto point = rss_at(series, kProcess, 178);
  ASSERT_TRUE(point.has_value());
  EXPECT_EQ(point->t_ms, 179);
  EXPECT_EQ(point->anon_bytes, 33 << 20);
}

TEST(HeapRss, TheNearestSampleOnEitherSideTheEarlierOfTwoAsNear) {
  RssSeries series = one_process({{100, 1, 1}, {200, 2, 2}, {300, 3, 3}});
  EXPECT_EQ(rss_bytes_at(series, 140), 1);
  EXPECT_EQ(rss_bytes_at(series, 160), 2);
  EXPECT_EQ(rss_bytes_at(series, 250), 2);
  EXPECT_EQ(rss_bytes_at(series, 200), 2);
  EXPECT_EQ(rss_bytes_at(series, 50), 1);
  EXPECT_EQ(rss_bytes_at(series, 900), 3);
}

TEST(HeapRss, AProcessNeverSampledHasNone) {
  RssSeries series = one_process({});
  EXPECT_FALSE(rss_at(series, kProcess, 100).has_value());
  EXPECT_FALSE(rss_at(series, kProcess + 1, 100).has_value());
}

}  // namespace
}  // namespace canopy::analyze
