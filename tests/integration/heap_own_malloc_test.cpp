// record --heap of a program whose malloc comes before the profiler's (its own, as
// Chromium's): the profiler stands aside, leaves the program's allocations to its own
// allocator, and the recording says why its processes were not profiled. And of a
// program whose loader finds its PLT entry for malloc first: that one is profiled.
#include <gtest/gtest.h>

#include <set>

#include "integration/harness.h"
#include "integration/heap_stood_aside.h"

namespace canopy::testing {
namespace {

const std::string kOwnMallocWorkload = CANOPY_HEAP_OWN_MALLOC_WORKLOAD_BIN;
const std::string kMallocPltWorkload = CANOPY_HEAP_MALLOC_PLT_WORKLOAD_BIN;

// 100 blocks of 64 KiB from new[] in each process. Had the profiler stood in front of
// operator new at one sample per 4 KiB, a process would have gone unsampled with
// probability exp(-1600): its image would be in the profile.
TEST(HeapOwnMalloc, AProgramWithItsOwnMallocKeepsItAndIsNotProfiled) {
  TempDir dir;
  std::string path = dir.file("own.db");
  Finished finished =
      run({kCanopy, "record", "-q", "--heap=4096", "-o", path, "--", kOwnMallocWorkload, "100", "65536"});
  // 3: the program's new went past its own malloc.
  ASSERT_EQ(finished.exit_status, 0) << finished.err;

  auto reader = open_recording(path);
  auto profile = reader.heap_profile();
  ASSERT_TRUE(profile) << profile.error().message;
  auto processes = reader.processes();
  ASSERT_TRUE(processes) << processes.error().message;
  ASSERT_EQ(processes->size(), 2u);  // the program and its forked child
  expect_every_process_stood_aside(*profile, *processes, "own malloc");

  auto heap_run = run({kCanopy, "heap", path});
  ASSERT_EQ(heap_run.exit_status, 0) << heap_run.err;
  EXPECT_NE(heap_run.out.find("  own malloc (2): its malloc comes before the profiler's"), std::string::npos)
      << heap_run.out;
}

// The loader's first "malloc" is the program's PLT entry, which leads to the profiler's:
// the program is profiled like any other. 200 blocks of 64 KiB in each process at one
// sample per 4 KiB: a process goes unsampled with probability exp(-3200).
TEST(HeapOwnMalloc, AProgramWhoseMallocHasAPltEntryIsProfiled) {
  TempDir dir;
  std::string path = dir.file("plt.db");
  Finished finished =
      run({kCanopy, "record", "-q", "--heap=4096", "-o", path, "--", kMallocPltWorkload, "100", "65536"});
  // 4: the build gave malloc no PLT entry in the program, and nothing was tested.
  ASSERT_EQ(finished.exit_status, 0) << finished.err;

  auto reader = open_recording(path);
  auto profile = reader.heap_profile();
  ASSERT_TRUE(profile) << profile.error().message;
  auto processes = reader.processes();
  ASSERT_TRUE(processes) << processes.error().message;
  EXPECT_TRUE(profile->unprofiled.empty()) << profile->unprofiled.front().reason;
  std::set<int64_t> sampled;
  for (const store::HeapImageRow& image : profile->images) {
    if (image.samples > 0) {
      sampled.insert(image.pid);
    }
  }
  ASSERT_EQ(processes->size(), 2u);
  for (const store::ProcessRow& process : *processes) {
    EXPECT_TRUE(sampled.count(process.pid)) << "pid " << process.pid << " (" << process.name << ")";
  }
}

}  // namespace
}  // namespace canopy::testing
