// web::cpu_report_json: what `report --html` embeds of a CPU profile stays within its
// bound, coarsening time before it gives up the processes, and still holds every sample.
// The heap panes' answers give the profiler's high-water estimate where it says more
// than the snapshots.
#include "web/profile_view.h"

#include <gtest/gtest.h>

#include "analyze/heap_history.h"

namespace canopy::web {
namespace {

// 100 samples, one each 100 ms over 10 s, of two processes (alternating) in two stacks
// (in pairs): at 20 ms, 100 entries; at 1 s, 10 seconds x 4 (process, stack) = 40; at
// 10 s, 4; the whole tree at 10 s, 2.
CpuView two_process_profile() {
  CpuView cpu;
  cpu.recorded = true;
  cpu.start_ms = 1'000'000;
  cpu.end_ms = cpu.start_ms + 10'000;
  const int32_t a = cpu.stacks.add({"main", "a"});
  const int32_t b = cpu.stacks.add({"main", "b"});
  for (int i = 0; i < 100; ++i) {
    cpu.samples.push_back({cpu.start_ms + i * 100, 1 + i % 2, i % 4 < 2 ? a : b});
  }
  return cpu;
}

int64_t counted(const nlohmann::json& rows) {
  int64_t sum = 0;
  for (const auto& row : rows) {
    sum += row.back().get<int64_t>();
  }
  return sum;
}

TEST(CpuReport, EntriesStayWithinTheBoundAndHoldEverySample) {
  const CpuView cpu = two_process_profile();
  struct Case {
    size_t max_entries;
    int64_t bucket_ms;
    bool by_process;
    size_t entries;
  };
  for (const Case& c : {Case{100, 20, true, 100}, Case{50, 1000, true, 40}, Case{4, 10'000, true, 4},
                        Case{3, 10'000, false, 2}}) {
    nlohmann::json report = cpu_report_json(cpu, c.max_entries);
    EXPECT_EQ(report["bucket_ms"], c.bucket_ms) << c.max_entries;
    EXPECT_EQ(report["entries_by_process"], c.by_process) << c.max_entries;
    EXPECT_EQ(report["entries"].size(), c.entries) << c.max_entries;
    EXPECT_EQ(counted(report["entries"]), 100) << c.max_entries;
    EXPECT_EQ(counted(report["cells"]), 100) << c.max_entries;
  }
  nlohmann::json fine = cpu_report_json(cpu);
  EXPECT_EQ(fine["bucket_ms"], kHeatRowMs);
  EXPECT_EQ(fine["nodes"].size(), 4u);  // all, main, a, b
  EXPECT_EQ(fine["nodes"][2], nlohmann::json::array({"a", 1}));
  // The tenth sample (i = 9, process 2, stack b) at 900 ms: cell (0, 45), bucket 45.
  EXPECT_EQ(fine["cells"][9], nlohmann::json::array({0, 45, 2, 1}));
}

TEST(CpuReport, FlameOfARangeIsItsSamples) {
  const CpuView cpu = two_process_profile();
  nlohmann::json all = cpu_flame_json(cpu, std::nullopt, cpu.start_ms + 1000, cpu.start_ms + 2000);
  EXPECT_EQ(all["samples"], 10);
  EXPECT_EQ(all["tree"]["v"], 10);
  nlohmann::json one = cpu_flame_json(cpu, ProcessSet(std::unordered_set<int64_t>{1}), cpu.start_ms, cpu.end_ms);
  EXPECT_EQ(one["samples"], 50);
  nlohmann::json heatmap = cpu_heatmap_json(cpu, ProcessSet(std::unordered_set<int64_t>{2}));
  EXPECT_EQ(heatmap["samples"], 50);
  EXPECT_EQ(heatmap["seconds"], 10);
}

constexpr int64_t kViewMiB = 1024 * 1024;

// Process 1's one image, with snapshots at 1, 2 and 3 s holding 10, 12 and 90 MiB; its
// heap reached 80 MiB between the first two, and the third holds its highest.
std::unique_ptr<HeapView> heap_that_rose_between_snapshots() {
  auto heap = std::make_unique<HeapView>();
  heap->profile.images.push_back({.id = 1, .process_id = 1, .pid = 100, .started_ms = 0, .rate_bytes = 4096});
  const int64_t in_use_mib[] = {10, 12, 90};
  const int64_t high_water_mib[] = {10, 80, 90};
  for (int64_t i = 0; i < 3; ++i) {
    heap->profile.snapshots.push_back({.id = i + 1,
                                       .image_id = 1,
                                       .t_ms = (i + 1) * 1000,
                                       .reason = "interval",
                                       .in_use_bytes = in_use_mib[i] * kViewMiB,
                                       .peak_in_use_bytes = high_water_mib[i] * kViewMiB});
  }
  heap->histories = analyze::heap_histories(heap->profile);
  store::ProcessRow process;
  process.id = 1;
  process.pid = 100;
  heap->processes = {process};
  heap->process_of_image[1] = 1;
  return heap;
}

TEST(HeapView, TheHighWaterBetweenSnapshotsIsGivenWhereTheSnapshotsMissIt) {
  const auto heap = heap_that_rose_between_snapshots();
  auto high_water_at = [&](int64_t t_ms) {
    auto answer = heap_flame_json(*heap, 1, t_ms);
    EXPECT_TRUE(answer) << answer.error().message;
    return answer ? (*answer)["high_water_bytes"] : nlohmann::json("error");
  };
  EXPECT_EQ(high_water_at(1500), nullptr) << "the snapshot holds the high-water mark";
  EXPECT_EQ(high_water_at(2500), 80 * kViewMiB);
  EXPECT_EQ(high_water_at(3500), nullptr) << "a later snapshot holds more";
  // `report --html` embeds the same, per snapshot, for the page to answer offline.
  const nlohmann::json report = heap_report_json(*heap);
  EXPECT_EQ(report["images"][0]["high_water"], nlohmann::json::array({nullptr, 80 * kViewMiB, nullptr}));
}

}  // namespace
}  // namespace canopy::web
