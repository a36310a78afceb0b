// What the HTML report embeds of a recording with more events than a page can hold:
// every marker, and the log thinned evenly over time, so a burst does not crowd out a
// quiet stretch. On a real recording file: the list reads it as canopy view does.
#include <gtest/gtest.h>

#include <algorithm>

#include "store/reader.h"
#include "store/writer.h"
#include "support/temp_dir.h"
#include "web/report_events.h"

namespace canopy::web {
namespace {

using canopy::testing::TempDir;

constexpr int64_t kStartMs = 1795341600000;

// 50,000 log lines in the first second, 50,000 over the next 99, and 20 markers.
std::string burst_recording(const TempDir& dir) {
  std::string path = dir.file("burst.canopy");
  auto writer = store::Writer::create(path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  writer->set_meta({.start_ms = kStartMs});
  for (int i = 0; i < 50'000; ++i) {
    writer->add_event({kStartMs + i / 50, "log", std::nullopt, "burst " + std::to_string(i)});
  }
  for (int i = 0; i < 50'000; ++i) {
    writer->add_event({kStartMs + 1000 + int64_t{i} * 99'000 / 50'000, "log", std::nullopt, "quiet " + std::to_string(i)});
  }
  for (int i = 0; i < 20; ++i) {
    writer->add_event({kStartMs + i * 5000 + 7, "mark", std::nullopt, "phase " + std::to_string(i)});
  }
  EXPECT_TRUE(writer->finish());
  return path;
}

TEST(ReportEvents, EveryMarkerAndTheLogEvenlyOverTime) {
  TempDir dir;
  auto reader = store::Reader::open(burst_recording(dir));
  ASSERT_TRUE(reader) << reader.error().message;
  auto list = EventList::load(*reader, {}, std::nullopt);
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ((*list)->size(), 100'020u);

  std::vector<size_t> picked = pick_report_events(**list, 1000);
  ASSERT_EQ(picked.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(picked.begin(), picked.end()));
  EXPECT_EQ(std::adjacent_find(picked.begin(), picked.end()), picked.end());
  int marks = 0;
  int in_burst = 0;
  int64_t widest_gap_ms = 0;
  int64_t previous_ms = -1;
  for (size_t position : picked) {
    const EventEntry& e = (**list)[position];
    if ((*list)->kind_name(e) == "mark") {
      ++marks;
      continue;
    }
    if (e.t_ms < kStartMs + 1000) {
      ++in_burst;
    } else if (previous_ms >= kStartMs + 1000) {
      widest_gap_ms = std::max(widest_gap_ms, e.t_ms - previous_ms);
    }
    previous_ms = e.t_ms;
  }
  EXPECT_EQ(marks, 20);
  // 980 log lines over 100 s: about one per 100 ms, the burst's second no more than its share.
  EXPECT_LE(in_burst, 20);
  EXPECT_GE(in_burst, 5);
  EXPECT_LE(widest_gap_ms, 250);
}

TEST(ReportEvents, AllOfAFewEvents) {
  TempDir dir;
  auto reader = store::Reader::open(burst_recording(dir));
  ASSERT_TRUE(reader) << reader.error().message;
  auto list = EventList::load(*reader, {}, std::nullopt);
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(pick_report_events(**list, 200'000).size(), 100'020u);
  EXPECT_EQ(pick_report_events(**list, 20).size(), 20u);  // the markers alone
  EXPECT_EQ(pick_report_events(**list, 0).size(), 0u);
}

TEST(ReportEvents, OnlyTheLongestTextsAreCut) {
  std::vector<std::string> texts = {std::string(10, 'a'), std::string(10, 'b'), std::string(1000, 'c')};
  EXPECT_EQ(text_cap(texts, 100, 64), 64u);     // under the budget, the longest is still capped
  EXPECT_EQ(text_cap(texts, 100, 1 << 16), 80u);  // 10 + 10 + 80
  EXPECT_EQ(text_cap(texts, 2000, 1 << 16), size_t{1} << 16);
  EXPECT_EQ(text_cap(texts, 24, 1 << 16), 8u);    // all three cut
}

}  // namespace
}  // namespace canopy::web
