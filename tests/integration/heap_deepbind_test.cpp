// record --heap of a program that loads a plugin with RTLD_DEEPBIND, whose malloc and
// free the loader binds to the C library's, past the profiler: the profiler binds them
// back. The plugin frees blocks the program allocated, which must not stay in the
// profile as leaks, and its own allocations are profiled, in its own frames.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

const std::string kDeepbindWorkload = CANOPY_HEAP_DEEPBIND_WORKLOAD_BIN;
const std::string kDeepbindPlugin = CANOPY_HEAP_DEEPBIND_PLUGIN;
constexpr int64_t kHandedBytes = 65600;  // as in heap_deepbind_workload.c
constexpr int64_t kKeptBytes = 65536;

// The workload hands each plugin N blocks to free, and keeps N each plugin made. Every
// handed block is freed: none may be alive at the end, whatever was sampled. Had a
// plugin's malloc gone past the profiler, none of its blocks would be seen; at one
// sample per 4 KiB, 20 blocks of 64 KiB all go unsampled with probability exp(-320).
void expect_the_plugin_bound_to_the_profiler(const std::string& path, std::vector<std::string> workload,
                                             const std::string& interval = "100ms") {
  std::vector<std::string> command = {kCanopy, "record", "-q", "--heap=4096", "--heap-interval", interval, "-o", path,
                                      "--", kDeepbindWorkload};
  command.insert(command.end(), workload.begin(), workload.end());
  Finished finished = run(command);
  // 5: the plugin's malloc is not the program's.
  ASSERT_EQ(finished.exit_status, 0) << finished.err;

  auto profile = open_recording(path).heap_profile();
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  ASSERT_EQ(profile->images.size(), 1u);
  int64_t handed_alive = 0;
  int64_t kept_alive = 0;
  for (const store::HeapAllocationRow& allocation : profile->allocations) {
    handed_alive += allocation.size_bytes == kHandedBytes && !allocation.freed_ms.has_value();
    kept_alive += allocation.size_bytes == kKeptBytes && !allocation.freed_ms.has_value();
  }
  EXPECT_EQ(handed_alive, 0) << "blocks the plugin freed are alive at the end";
  EXPECT_GT(kept_alive, 0);

  auto heap_run = run({kCanopy, "heap", path});
  ASSERT_EQ(heap_run.exit_status, 0) << heap_run.err;
  EXPECT_NE(heap_run.out.find("deepbind_plugin_make"), std::string::npos) << heap_run.out;
}

// By path: bound back before dlopen returns (the workload checks at once).
TEST(HeapDeepbind, APluginLoadedByPathIsBoundBackToTheProfiler) {
  TempDir dir;
  expect_the_plugin_bound_to_the_profiler(dir.file("path.db"), {kDeepbindPlugin, "100"});
}

// With lazy binding, the plugin's calls are bound on their first, after the load: the
// profiler binds them first, where a lookup from the plugin would find the C library.
TEST(HeapDeepbind, APluginLoadedLazilyIsBoundToTheProfilerBeforeItsFirstCall) {
  TempDir dir;
  expect_the_plugin_bound_to_the_profiler(dir.file("lazy.db"), {kDeepbindPlugin, "100", "lazy"});
}

// By bare name, which the loader searches on the caller's RUNPATH: the profiler passes
// that dlopen on whole (from its own frame, the name would not be found), and its
// thread, woken by it, binds the plugin back once the load is done (the workload waits
// for it). Snapshots an hour apart: only the wake-up can have done it.
TEST(HeapDeepbind, APluginFoundOnTheCallersRunpathLoadsAndIsBoundBack) {
  TempDir dir;
  expect_the_plugin_bound_to_the_profiler(dir.file("runpath.db"),
                                          {std::filesystem::path(kDeepbindPlugin).filename().string(), "100"}, "1h");
}

// Five plugins loaded at once, four by path and one by bare name, each by a thread of
// its own, while four threads allocate and free: no load waits on another for ever,
// and each plugin is bound back, by its own thread's sweep or, where another thread
// was sweeping, by the profiler's thread.
TEST(HeapDeepbind, PluginsLoadedAtOnceAreEachBoundBack) {
  TempDir dir;
  std::vector<std::string> workload = {"threads", "20"};
  for (int i = 0; i < 4; ++i) {
    std::string copy = dir.file("libplugin" + std::to_string(i) + ".so");
    std::filesystem::copy_file(kDeepbindPlugin, copy);
    workload.push_back(copy);
  }
  workload.push_back(std::filesystem::path(kDeepbindPlugin).filename().string());
  expect_the_plugin_bound_to_the_profiler(dir.file("threads.db"), workload, "1h");
}

}  // namespace
}  // namespace canopy::testing
