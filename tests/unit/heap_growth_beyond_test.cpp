// Which resident memory findings a heap profile leaves unexplained
// (analyze::growth_beyond_heap): those of processes without a heap leak whose heap in
// use rose less than half as much as their resident memory, on a hand-made profile.
#include <gtest/gtest.h>

#include "analyze/heap_leaks.h"

namespace canopy::analyze {
namespace {

constexpr int64_t kBeyondMiB = 1024 * 1024;

GrowthFinding rose_100_mib(int64_t process_id, GrowthFinding::Verdict verdict) {
  GrowthFinding f;
  f.verdict = verdict;
  f.process_id = process_id;
  f.pid = process_id * 100;
  f.name = "p" + std::to_string(process_id);
  f.start_bytes = 20 * kBeyondMiB;
  f.max_bytes = 120 * kBeyondMiB;
  return f;
}

// An image of process `process_id` whose snapshots stood at these MiB in use, the last
// one's high-water mark `peak_mib`.
void add_image(store::HeapProfile& profile, int64_t process_id, std::vector<int64_t> in_use_mib, int64_t peak_mib) {
  const int64_t image_id = static_cast<int64_t>(profile.images.size()) + 1;
  profile.images.push_back({.id = image_id, .process_id = process_id, .pid = process_id * 100, .rate_bytes = 1});
  for (size_t i = 0; i < in_use_mib.size(); ++i) {
    const int64_t mib = in_use_mib[i];
    profile.snapshots.push_back({.id = static_cast<int64_t>(profile.snapshots.size()) + 1,
                                 .image_id = image_id,
                                 .t_ms = static_cast<int64_t>(i) * 1000,
                                 .reason = "interval",
                                 .in_use_bytes = mib * kBeyondMiB,
                                 .peak_in_use_bytes = (i + 1 == in_use_mib.size() ? peak_mib : mib) * kBeyondMiB});
  }
}

TEST(HeapGrowthBeyond, OnlyGrowthTheHeapNeitherLeakedNorHeld) {
  using Verdict = GrowthFinding::Verdict;
  std::vector<store::ProcessRow> processes;
  for (int64_t id = 1; id <= 6; ++id) {
    store::ProcessRow row;
    row.id = id;
    row.pid = static_cast<pid_t>(id * 100);
    processes.push_back(row);
  }
  store::HeapProfile profile;
  // 2: a cache of the heap that filled up (no leak): its heap rose 89 MiB of the 100.
  add_image(profile, 2, {1, 40, 90}, 90);
  // 3: its heap leaks; that explains its growth.
  add_image(profile, 3, {1, 2, 3}, 3);
  // 5: a heap of 10 MiB that rose 10 MiB, where resident memory rose 100 MiB.
  add_image(profile, 5, {10, 15, 20}, 20);
  // 6: a heap that stood at 5 MiB at each snapshot but reached 60 MiB between two.
  add_image(profile, 6, {5, 5, 5}, 60);
  HeapLeakReport report;
  report.leaks.push_back({.pid = 300, .name = "p3", .stack_id = 1, .verdict = {}});
  GrowthReport growth;
  // 1 has no image at all (a static binary, or memory it maps itself).
  growth.findings = {rose_100_mib(1, Verdict::kSteady), rose_100_mib(2, Verdict::kHeld),
                     rose_100_mib(3, Verdict::kSteady), rose_100_mib(4, Verdict::kReturned),
                     rose_100_mib(5, Verdict::kHeld),   rose_100_mib(6, Verdict::kSteady)};

  std::vector<int64_t> beyond;
  for (const GrowthFinding& f : growth_beyond_heap(growth, report, heap_histories(profile), processes)) {
    beyond.push_back(f.process_id);
  }
  // 4 gave its memory back; 6's heap reached 55 MiB above its lowest, over half of 100.
  EXPECT_EQ(beyond, (std::vector<int64_t>{1, 5}));
}

}  // namespace
}  // namespace canopy::analyze
