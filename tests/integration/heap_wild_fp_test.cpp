// A program built without frame pointers may call malloc with anything in the frame
// pointer's register. The profiler's walk must see a broken chain and let libunwind
// unwind, never follow it: with -16 there, a bound check that wraps read address
// 0xfffffffffffffff0 and killed the program (GNU as did this under --heap).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

#ifdef CANOPY_HEAP_WILD_FP_WORKLOAD_BIN
// As in heap_wild_frame_pointer.c. At one sample per 4 KiB, a 64 KiB block is missed
// with probability exp(-16) < 1.2e-7, so all 200 but a few are seen: the estimate is
// within 25% with probability far above 1 - 1e-9.
constexpr int64_t kBlocks = 200;
constexpr int64_t kBlockBytes = 65536;

TEST(HeapWildFramePointer, TheProgramRunsAndItsBlocksAreEstimated) {
  TempDir dir;
  std::string path = dir.file("heap.canopy");
  auto result = run({kCanopy, "record", "-q", "--heap=4K", "-o", path, "--", CANOPY_HEAP_WILD_FP_WORKLOAD_BIN});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "allocated\n");

  auto report = run({kCanopy, "heap", "--json", "--top", "20", "--frames", "1", path});
  ASSERT_EQ(report.exit_status, 0) << report.err;
  double bytes = 0;
  nlohmann::json json = nlohmann::json::parse(report.out);
  for (const auto& image : json["images"]) {
    for (const auto& stack : image["at_end"]["stacks"]) {
      if (!stack["frames"].empty() && stack["frames"][0]["function"] == "malloc_with_wild_frame_pointer") {
        bytes += stack["in_use_bytes"].get<double>();
      }
    }
  }
  double truth = static_cast<double>(kBlocks * kBlockBytes);
  EXPECT_NEAR(bytes, truth, truth * 0.25) << report.out;
}
#else
TEST(HeapWildFramePointer, TheProgramRunsAndItsBlocksAreEstimated) {
  GTEST_SKIP() << "the wild frame pointer workload is built on x86-64 only";
}
#endif

}  // namespace
}  // namespace canopy::testing
