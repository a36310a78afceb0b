// The heap library's in-process tables, compiled into the test from src/heap/ (the
// library itself cannot be linked: it exports malloc). The live table's deletion
// shifts entries back along their probe runs, where a wrong shift loses an allocation
// that is still alive: exercised here against a std::map holding the truth.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>

#include "heap/live_table.h"
#include "heap/sampler.h"
#include "heap/stack_table.h"

namespace canopy::heap {
namespace {

TEST(HeapLiveTable, InsertsAndRemovesAgreeWithAMap) {
  LiveTable table;
  ASSERT_TRUE(table.init());
  std::map<uint64_t, uint64_t> truth;  // address -> allocation id
  std::mt19937_64 random(7);
  uint64_t next_id = 1;
  // Addresses from a narrow range, 16-byte aligned, so that probe runs collide often.
  for (int step = 0; step < 200000; ++step) {
    uint64_t address = 0x10000 + (random() % 50000) * 16;
    LiveAllocation removed{};
    if (truth.count(address)) {
      ASSERT_TRUE(table.remove(reinterpret_cast<const void*>(address), removed));
      EXPECT_EQ(removed.allocation_id, truth[address]);
      truth.erase(address);
    } else {
      ASSERT_TRUE(table.insert({address, next_id, 64, 0.5, 0, 1, false}));
      truth[address] = next_id++;
    }
  }
  for (const auto& [address, id] : truth) {
    ASSERT_TRUE(table.may_hold(reinterpret_cast<const void*>(address)));
    LiveAllocation* found = table.find(address);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->allocation_id, id);
  }
  // About 25,000 live at the end: the table grew several times on the way.
  EXPECT_GT(table.capacity(), LiveTable::kInitialSlots * 4);
}

// Growth moves every entry and republishes the filter; nothing inserted before a growth
// may be lost by it, and the table refuses only at its largest.
TEST(HeapLiveTable, GrowsToItsLargestAndThenRefuses) {
  LiveTable table;
  ASSERT_TRUE(table.init());
  auto address_of = [](uint32_t i) { return 0x7f0000000000ULL + uint64_t{i} * 48; };
  for (uint32_t i = 0; i < LiveTable::kMaxLive; ++i) {
    ASSERT_TRUE(table.insert({address_of(i), i + 1, 48, 1, 0, 0, false})) << i;
  }
  EXPECT_EQ(table.capacity(), LiveTable::kMaxSlots);
  EXPECT_FALSE(table.insert({address_of(LiveTable::kMaxLive), 0, 48, 1, 0, 0, false}));
  for (uint32_t i = 0; i < LiveTable::kMaxLive; i += 97) {
    ASSERT_TRUE(table.may_hold(reinterpret_cast<const void*>(address_of(i)))) << i;
    LiveAllocation* found = table.find(address_of(i));
    ASSERT_NE(found, nullptr) << i;
    EXPECT_EQ(found->allocation_id, i + 1);
  }
}

TEST(HeapLiveTable, AnAddressNeverInsertedIsNotFound) {
  LiveTable table;
  ASSERT_TRUE(table.init());
  ASSERT_TRUE(table.insert({0x5000, 1, 64, 1, 0, 0, false}));
  LiveAllocation removed{};
  EXPECT_FALSE(table.remove(reinterpret_cast<const void*>(0x5010), removed));
  EXPECT_FALSE(table.may_hold(reinterpret_cast<const void*>(0x7fff0000)));
}

TEST(HeapStackTable, AStackIsKeptOnceWithDenseIds) {
  StackTable table;
  ASSERT_TRUE(table.init());
  CapturedStack a{{1, 2, 3}, 3, false};
  CapturedStack b{{1, 2, 4}, 3, false};
  CapturedStack shorter{{1, 2}, 2, false};
  EXPECT_EQ(table.intern(a), 0u);
  EXPECT_EQ(table.intern(b), 1u);
  EXPECT_EQ(table.intern(shorter), 2u);
  EXPECT_EQ(table.intern(a), 0u);
  EXPECT_EQ(table.size(), 3u);
  const StackEntry& entry = table.entry(1);
  ASSERT_EQ(entry.depth, 3u);
  EXPECT_EQ(table.frames(entry)[2], 4u);
}

// Poisson sampling: over many allocations of one size, the share sampled is
// p = 1 - exp(-size / rate). With n = 400,000 draws of p = 0.2212 (size 1 KiB at
// 4 KiB), the count's standard deviation is 262; 8 deviations (2,100) bound a miss at
// below 1e-9 by Chernoff's bound for this mean.
TEST(HeapSampler, TheShareSampledIsTheProbabilityItStates) {
  sampling_rate_bytes.store(4096);
  ThreadState thread{};
  const int n = 400000;
  const uint64_t size = 1024;
  int sampled = 0;
  for (int i = 0; i < n; ++i) {
    if (counts_down_to_sample(thread, size) && take_sample(thread, size)) {
      ++sampled;
    }
  }
  double p = sample_probability(size, 4096);
  EXPECT_NEAR(p, 0.2212, 0.0001);
  EXPECT_NEAR(sampled, n * p, 2100);
  sampling_rate_bytes.store(0);
}

}  // namespace
}  // namespace canopy::heap
