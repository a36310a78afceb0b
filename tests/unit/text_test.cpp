#include "common/text.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

namespace canopy {
namespace {

TEST(FormatBytes, HumanUnits) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(int64_t{150} << 20), "150.0 MiB");
  EXPECT_EQ(format_bytes(int64_t{3} << 30), "3.0 GiB");
}

TEST(FormatDuration, SecondsMinutesHours) {
  EXPECT_EQ(format_duration_ms(1234), "1.234 s");
  EXPECT_EQ(format_duration_ms(123'400), "2 m 03.4 s");
  EXPECT_EQ(format_duration_ms(3'723'000), "1 h 02 m 03 s");
}

TEST(FormatLocalTime, InThisMachinesZoneWithItsOffset) {
  const char* saved = std::getenv("TZ");
  std::string previous = saved ? saved : "";
  ::setenv("TZ", "Europe/Berlin", 1);
  ::tzset();
  EXPECT_EQ(format_local_time_ms(1795341600999), "2026-11-22 11:00:00 +0100");  // 10:00:00.999 UTC
  EXPECT_EQ(format_local_time_ms(1785315600000), "2026-07-29 11:00:00 +0200");  // summer time
  saved ? ::setenv("TZ", previous.c_str(), 1) : ::unsetenv("TZ");
  ::tzset();
}

TEST(ParseInt, WholeTextOnly) {
  EXPECT_EQ(parse_int<int>("42"), 42);
  EXPECT_FALSE(parse_int<int>("42x"));
  EXPECT_FALSE(parse_int<int>(""));
  EXPECT_FALSE(parse_int<int>("99999999999"));
}

TEST(HexOf, TwoLowercaseDigitsEachByteInOrder) {
  const unsigned char bytes[] = {0x00, 0x0f, 0xa5, 0xff, 0x10};
  EXPECT_EQ(hex_of(bytes, sizeof bytes), "000fa5ff10");
  EXPECT_EQ(hex_of(bytes, 0), "");
}

}  // namespace
}  // namespace canopy
