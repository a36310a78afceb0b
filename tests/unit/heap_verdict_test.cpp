// The verdict's rules (analyze/heap_verdict.h) on hand-made histories: one stack, ten
// snapshots a second apart, its totals and sampled allocations as each pattern leaves them.
#include <gtest/gtest.h>

#include "analyze/heap_history.h"
#include "analyze/heap_verdict.h"

namespace canopy::analyze {
namespace {

constexpr int64_t kStack = 1;
constexpr int kSnapshots = 10;

class Pattern {
 public:
  Pattern() {
    profile_.images.push_back({.id = 1, .pid = 7, .rate_bytes = 4096});
    for (int i = 0; i < kSnapshots; ++i) {
      profile_.snapshots.push_back({.id = i + 1, .image_id = 1, .t_ms = 1000 * i, .reason = "interval"});
    }
  }
  // The stack's cumulative totals at snapshot i.
  void totals(int i, int64_t allocated, int64_t freed) {
    profile_.totals.push_back({.snapshot_id = i + 1, .stack_id = kStack, .allocated_bytes = allocated,
                               .allocated_count = allocated / 100, .freed_bytes = freed, .freed_count = freed / 100});
  }
  void sampled(int64_t born_ms, std::optional<int64_t> freed_ms) {
    profile_.allocations.push_back({.id = static_cast<int64_t>(profile_.allocations.size()) + 1, .image_id = 1,
                                    .stack_id = kStack, .size_bytes = 100, .probability = 0.1, .born_ms = born_ms,
                                    .freed_ms = freed_ms});
  }
  HeapVerdict judge() {
    histories_ = heap_histories(profile_);
    return judge_heap_stack(histories_[0], kStack, kSnapshots - 1);
  }

 private:
  store::HeapProfile profile_;
  std::vector<HeapImageHistory> histories_;
};

TEST(HeapVerdictRules, GrowingAndKeepingEverythingIsALeak) {
  Pattern p;
  for (int i = 0; i < kSnapshots; ++i) {
    p.totals(i, 1000 * (i + 1), 0);
    p.sampled(1000 * i, std::nullopt);
  }
  HeapVerdict v = p.judge();
  EXPECT_EQ(v.kind, HeapVerdict::Kind::kLeak);
  EXPECT_EQ(v.rises, kSnapshots);
  EXPECT_EQ(v.half_t_ms, 4000);  // it held 5000 of its 10000 then
  EXPECT_EQ(v.half_sampled, 5);
  EXPECT_EQ(v.half_kept, 5);
}

TEST(HeapVerdictRules, AFlatCacheThatReplacesItsEntriesIsBounded) {
  Pattern p;
  for (int i = 0; i < kSnapshots; ++i) {
    p.totals(i, 1000 * (i + 1), 1000 * i);  // holds 1000, each entry lives one second
    for (int k = 0; k < 10; ++k) {
      p.sampled(1000 * i, i + 1 < kSnapshots ? std::optional<int64_t>(1000 * (i + 1)) : std::nullopt);
    }
  }
  HeapVerdict v = p.judge();
  EXPECT_EQ(v.kind, HeapVerdict::Kind::kBounded);
  EXPECT_EQ(v.reason, HeapVerdict::Reason::kRecycled);
  EXPECT_EQ(v.half_kept, 0);
}

TEST(HeapVerdictRules, MemoryGivenBackIsBounded) {
  Pattern p;
  p.totals(0, 8000, 0);
  p.totals(5, 8000, 7000);
  HeapVerdict v = p.judge();
  EXPECT_EQ(v.kind, HeapVerdict::Kind::kBounded);
  EXPECT_EQ(v.reason, HeapVerdict::Reason::kGaveBack);
  EXPECT_EQ(v.peak_bytes, 8000);
  EXPECT_EQ(v.held_bytes, 1000);
}

TEST(HeapVerdictRules, StateBuiltOnceAndHeldIsBounded) {
  Pattern p;
  p.totals(1, 5000, 0);
  for (int k = 0; k < 50; ++k) {
    p.sampled(1000, std::nullopt);
  }
  HeapVerdict v = p.judge();
  EXPECT_EQ(v.kind, HeapVerdict::Kind::kBounded);
  EXPECT_EQ(v.reason, HeapVerdict::Reason::kGrewOnce);
}

TEST(HeapVerdictRules, GrowthAtTwoSnapshotsIsUnclear) {
  Pattern p;
  p.totals(1, 2500, 0);
  p.totals(2, 5000, 0);
  for (int k = 0; k < 50; ++k) {
    p.sampled(k < 25 ? 1000 : 2000, std::nullopt);
  }
  HeapVerdict v = p.judge();
  EXPECT_EQ(v.kind, HeapVerdict::Kind::kUnclear);
  EXPECT_EQ(v.reason, HeapVerdict::Reason::kGrewAtFew);
}

TEST(HeapVerdictRules, FewSampledAllocationsAreUnclear) {
  Pattern p;
  for (int i = 0; i < kSnapshots; ++i) {
    p.totals(i, 1000 * (i + 1), 0);
  }
  for (int k = 0; k < kVerdictMinSampled - 1; ++k) {
    p.sampled(0, std::nullopt);
  }
  HeapVerdict v = p.judge();
  EXPECT_EQ(v.kind, HeapVerdict::Kind::kUnclear);
  EXPECT_EQ(v.reason, HeapVerdict::Reason::kTooFewSamples);
}

}  // namespace
}  // namespace canopy::analyze
