#include "common/units.h"

#include <gtest/gtest.h>

namespace canopy {
namespace {

TEST(Units, SizesInPowersOf1024InAnyCase) {
  EXPECT_EQ(*parse_size_bytes("4096"), 4096);
  EXPECT_EQ(*parse_size_bytes("4096b"), 4096);
  EXPECT_EQ(*parse_size_bytes("64K"), 64 * 1024);
  EXPECT_EQ(*parse_size_bytes("64kib"), 64 * 1024);
  EXPECT_EQ(*parse_size_bytes("512M"), 512LL << 20);
  EXPECT_EQ(*parse_size_bytes("512MB"), 512LL << 20);
  EXPECT_EQ(*parse_size_bytes("1.5G"), 3LL << 29);
  EXPECT_EQ(*parse_size_bytes("7E"), 7LL << 60);
  EXPECT_EQ(*parse_size_bytes("-1M"), -(1LL << 20));  // the caller's range says why not
}

TEST(Units, SizesRefused) {
  EXPECT_EQ(parse_size_bytes("lots").error().message, "not a size such as 2G or 512M");
  EXPECT_EQ(parse_size_bytes("").error().message, "not a size such as 2G or 512M");
  EXPECT_EQ(parse_size_bytes("1X").error().message, "not a size such as 2G or 512M");
  EXPECT_EQ(parse_size_bytes("1 M").error().message, "not a size such as 2G or 512M");
  EXPECT_EQ(parse_size_bytes("8E").error().message, "too large");
  EXPECT_EQ(parse_size_bytes("99999999999999999999").error().message, "too large");
  EXPECT_EQ(parse_size_bytes("1e30").error().message, "not a size such as 2G or 512M");
}

TEST(Units, DurationsNeedTheirUnit) {
  EXPECT_EQ(*parse_duration_ms("500ms"), 500);
  EXPECT_EQ(*parse_duration_ms("90s"), 90'000);
  EXPECT_EQ(*parse_duration_ms("1.5m"), 90'000);
  EXPECT_EQ(*parse_duration_ms("2h"), 7'200'000);
  EXPECT_EQ(*parse_duration_ms("0s"), 0);
  EXPECT_EQ(*parse_duration_ms("-3s"), -3000);
  for (const char* bad : {"10", "10S", "s", "1.2.3s", "tens"}) {
    EXPECT_EQ(parse_duration_ms(bad).error().message, "not a duration such as 10m, 90s or 500ms") << bad;
  }
}

// --interval's values: a duration, or a bare number of milliseconds as it always took.
TEST(Units, IntervalsTakeADurationOrMilliseconds) {
  EXPECT_EQ(*parse_interval_ms("100"), 100);
  EXPECT_EQ(*parse_interval_ms("250ms"), 250);
  EXPECT_EQ(*parse_interval_ms("0.5s"), 500);
  EXPECT_EQ(*parse_interval_ms("1m"), 60'000);
  EXPECT_EQ(*parse_interval_ms("0"), 0);  // the caller says what range it takes
  EXPECT_EQ(parse_interval_ms("99999999999999999999").error().message, "too large");
  for (const char* bad : {"", "1.5", "-", "10S", "fast"}) {
    EXPECT_EQ(parse_interval_ms(bad).error().message,
              "not an interval such as 250ms or 2s (a bare number is milliseconds)")
        << bad;
  }
}

TEST(Units, WrittenBackAsAUserWould) {
  EXPECT_EQ(duration_text(0), "0s");
  EXPECT_EQ(duration_text(1), "1ms");
  EXPECT_EQ(duration_text(1500), "1500ms");
  EXPECT_EQ(duration_text(5000), "5s");
  EXPECT_EQ(duration_text(600'000), "10m");
  EXPECT_EQ(duration_text(3'600'000), "1h");
  EXPECT_EQ(size_text(0), "0");
  EXPECT_EQ(size_text(1000), "1000");
  EXPECT_EQ(size_text(4096), "4K");
  EXPECT_EQ(size_text(512LL << 20), "512M");
}

}  // namespace
}  // namespace canopy
