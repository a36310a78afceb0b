// Stacks that read alike, merged into the one that stands for them: the heap as an
// unrolled loop leaves it. A program leaks a block a round for ten rounds; the compiler
// unrolled the loop that calls the leaking function, so each round's call has a return
// address of its own, and each round's allocations a stack of their own, which grows
// once and holds flat. Only merged do they show the leak.
#include <gtest/gtest.h>

#include "analyze/heap_history.h"
#include "analyze/heap_verdict.h"

namespace canopy::analyze {
namespace {

constexpr int kRounds = 10;
constexpr int64_t kFirstStack = 100;  // round i's stack is kFirstStack + i
constexpr int64_t kBlockBytes = 1000;

store::HeapProfile unrolled_leak() {
  store::HeapProfile profile;
  profile.images.push_back({.id = 1, .pid = 7, .rate_bytes = 4096});
  for (int i = 0; i < kRounds; ++i) {
    profile.snapshots.push_back({.id = i + 1, .image_id = 1, .t_ms = 1000 * i, .reason = "interval"});
    // Written at the one snapshot where it changed; carried forward after.
    profile.totals.push_back({.snapshot_id = i + 1, .stack_id = kFirstStack + i, .allocated_bytes = kBlockBytes * 10,
                              .allocated_count = 10, .freed_bytes = 0, .freed_count = 0});
    for (int k = 0; k < 10; ++k) {
      profile.allocations.push_back({.id = static_cast<int64_t>(profile.allocations.size()) + 1, .image_id = 1,
                                     .stack_id = kFirstStack + i, .size_bytes = kBlockBytes, .probability = 1,
                                     .born_ms = 1000 * i, .freed_ms = std::nullopt});
    }
  }
  return profile;
}

HeapStackAliases all_as_the_first() {
  HeapStackAliases aliases;
  for (int i = 1; i < kRounds; ++i) {
    aliases[kFirstStack + i] = kFirstStack;
  }
  return aliases;
}

TEST(HeapStackAliases, EachRoundAloneGrewOnce) {
  store::HeapProfile profile = unrolled_leak();
  std::vector<HeapImageHistory> histories = heap_histories(profile);
  ASSERT_EQ(histories.size(), 1u);
  EXPECT_EQ(histories[0].stacks.size(), static_cast<size_t>(kRounds));
  HeapVerdict v = judge_heap_stack(histories[0], kFirstStack, kRounds - 1);
  EXPECT_NE(v.kind, HeapVerdict::Kind::kLeak);
}

TEST(HeapStackAliases, MergedTheRoundsAreOneStackThatLeaks) {
  store::HeapProfile profile = unrolled_leak();
  std::vector<HeapImageHistory> histories = heap_histories(profile, all_as_the_first());
  ASSERT_EQ(histories.size(), 1u);
  const HeapImageHistory& history = histories[0];
  ASSERT_EQ(history.stacks.size(), 1u);
  EXPECT_EQ(history.stacks.begin()->first, kFirstStack);
  // Each snapshot holds every round up to it, the earlier ones carried forward.
  for (int i = 0; i < kRounds; ++i) {
    HeapStackTotals totals = history.totals_at(kFirstStack, static_cast<size_t>(i));
    EXPECT_EQ(totals.stack_id, kFirstStack);
    EXPECT_EQ(totals.in_use_bytes(), kBlockBytes * 10 * (i + 1)) << "snapshot " << i;
    EXPECT_EQ(totals.in_use_count(), 10 * (i + 1)) << "snapshot " << i;
  }
  ASSERT_EQ(history.allocations.size(), 1u);
  const auto& sampled = history.allocations.at(kFirstStack);
  ASSERT_EQ(sampled.size(), static_cast<size_t>(kRounds * 10));
  EXPECT_TRUE(std::is_sorted(sampled.begin(), sampled.end(),
                             [](const auto* a, const auto* b) { return a->born_ms < b->born_ms; }));
  HeapVerdict v = judge_heap_stack(history, kFirstStack, kRounds - 1);
  EXPECT_EQ(v.kind, HeapVerdict::Kind::kLeak);
  EXPECT_EQ(v.rises, kRounds);
}

// A stack aliased to one this image never used stands for it there.
TEST(HeapStackAliases, AStackAliasedToOneTheImageLacksTakesItsPlace) {
  store::HeapProfile profile = unrolled_leak();
  HeapStackAliases aliases = {{kFirstStack + 1, 42}, {kFirstStack + 2, 42}};
  std::vector<HeapImageHistory> histories = heap_histories(profile, aliases);
  const HeapImageHistory& history = histories[0];
  EXPECT_EQ(history.stacks.size(), static_cast<size_t>(kRounds - 1));
  EXPECT_EQ(history.stacks.count(kFirstStack + 1), 0u);
  EXPECT_EQ(history.totals_at(42, 1).in_use_bytes(), kBlockBytes * 10);
  EXPECT_EQ(history.totals_at(42, 2).in_use_bytes(), kBlockBytes * 20);
  EXPECT_EQ(history.allocations.at(42).size(), 20u);
  EXPECT_EQ(history.totals_at(kFirstStack, 5).in_use_bytes(), kBlockBytes * 10);
}

}  // namespace
}  // namespace canopy::analyze
