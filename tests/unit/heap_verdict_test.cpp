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
  void totals(int i, int64_t allocated, int64_t freed, int64_t stack_id = kStack) {
    profile_.totals.push_back({.snapshot_id = i + 1, .stack_id = stack_id, .allocated_bytes = allocated,
                               .allocated_count = allocated / 100, .freed_bytes = freed, .freed_count = freed / 100});
  }
  void sampled(int64_t born_ms, std::optional<int64_t> freed_ms) {
    profile_.allocations.push_back({.id = static_cast<int64_t>(profile_.allocations.size()) + 1, .image_id = 1,
                                    .stack_id = kStack, .size_bytes = 100, .probability = 0.1, .born_ms = born_ms,
                                    .freed_ms = freed_ms});
  }
  // The last snapshot is the process's exit, after its teardown.
  void ends_in_exit() { profile_.snapshots.back().reason = "exit"; }
  // The image's whole heap at snapshot i.
  void heap(int i, int64_t in_use) { profile_.snapshots[static_cast<size_t>(i)].in_use_bytes = in_use; }
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

// Grows by 1000 at each of the snapshots before `last`, keeping its two sampled
// allocations of each until `freed_ms`; the image's heap is the stack's.
void grow_until(Pattern& p, int last, int64_t freed_ms) {
  for (int i = 0; i < last; ++i) {
    p.totals(i, 1000 * (i + 1), 0);
    p.heap(i, 1000 * (i + 1));
    p.sampled(1000 * i, freed_ms);
    p.sampled(1000 * i, freed_ms);
  }
}

TEST(HeapVerdictRules, WhatOnlyTheExitFreedIsJudgedAsItRan) {
  // An interpreter's finalization frees the list that grew all run long: that is not
  // memory given back, and the verdict is the one of the snapshot before the exit.
  Pattern p;
  const int exit = kSnapshots - 1;
  grow_until(p, exit, 1000 * exit - 5);
  p.totals(exit, 1000 * exit, 1000 * exit);
  p.ends_in_exit();
  HeapVerdict v = p.judge();
  EXPECT_EQ(v.kind, HeapVerdict::Kind::kLeak);
  EXPECT_TRUE(v.freed_at_exit);
  EXPECT_EQ(v.held_bytes, 1000 * exit);
  EXPECT_EQ(v.rises, exit);
  EXPECT_EQ(v.half_kept, v.half_sampled);
}

TEST(HeapVerdictRules, ASnapshotThatCaughtTheTeardownHalfDoneIsPartOfIt) {
  // A static destructor freeing a large table is slow: an interval snapshot fell
  // between its start and the exit snapshot.
  Pattern p;
  const int exit = kSnapshots - 1;
  grow_until(p, exit - 1, 1000 * (exit - 1) - 5);
  p.totals(exit - 1, 1000 * (exit - 1), 750 * (exit - 1));  // three quarters freed by then
  p.heap(exit - 1, 250 * (exit - 1));
  p.totals(exit, 1000 * (exit - 1), 1000 * (exit - 1));
  p.ends_in_exit();
  HeapVerdict v = p.judge();
  EXPECT_EQ(v.kind, HeapVerdict::Kind::kLeak);
  EXPECT_TRUE(v.freed_at_exit);
  EXPECT_EQ(v.held_bytes, 1000 * (exit - 1));
}

TEST(HeapVerdictRules, MemoryLetGoWhileTheProgramStillWorkedIsGivenBack) {
  // Grown until snapshot 4, then let go a fifth a second while another stack churns
  // through 100 times as much (git pack-objects ending its delta search): the heap falls
  // at every snapshot into the exit, but only the last second is the teardown.
  Pattern p;
  const int exit = kSnapshots - 1;
  grow_until(p, 5, 1000 * exit);
  constexpr int64_t kChurn = 100'000;
  for (int i = 5; i < exit; ++i) {
    const int64_t held = 5000 - 1000 * (i - 4);
    p.totals(i, 5000, 5000 - held);
    p.totals(i, kChurn * (i - 4), kChurn * (i - 4), kStack + 1);
    p.heap(i, held);
  }
  p.totals(exit, 5000, 5000);
  p.ends_in_exit();
  HeapVerdict v = p.judge();
  EXPECT_EQ(v.reason, HeapVerdict::Reason::kGaveBack);
  EXPECT_FALSE(v.freed_at_exit);
}

TEST(HeapVerdictRules, MemoryGivenBackBeforeTheExitStaysGivenBack) {
  // Given back at snapshot 5, then idle: the heap held flat until the exit.
  Pattern p;
  p.totals(0, 8000, 0);
  p.totals(5, 8000, 7000);
  for (int i = 0; i < kSnapshots - 1; ++i) {
    p.heap(i, i < 5 ? 8000 : 1000);
  }
  p.totals(kSnapshots - 1, 8000, 8000);
  p.ends_in_exit();
  HeapVerdict v = p.judge();
  EXPECT_EQ(v.reason, HeapVerdict::Reason::kGaveBack);
  EXPECT_FALSE(v.freed_at_exit);
  EXPECT_EQ(v.held_bytes, 0);
}

TEST(HeapVerdictRules, GivingBackAtTheLastSnapshotBeforeTheEndIsNotTheExit) {
  // Without an exit snapshot (a process still running, or killed), the last snapshot
  // is as it ran: what it freed there it gave back.
  Pattern p;
  const int last = kSnapshots - 1;
  grow_until(p, last, 1000 * last - 5);
  p.totals(last, 1000 * last, 1000 * last);
  HeapVerdict v = p.judge();
  EXPECT_EQ(v.reason, HeapVerdict::Reason::kGaveBack);
  EXPECT_FALSE(v.freed_at_exit);
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
