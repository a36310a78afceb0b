// record --heap of a program built with AddressSanitizer (gcc's, whose runtime is a
// library): it runs as it would without canopy, its report reads as it would, and the
// recording says why its processes were not profiled.
#include <gtest/gtest.h>

#include <regex>

#include "integration/harness.h"
#include "integration/heap_stood_aside.h"

namespace canopy::testing {
namespace {

const std::string kSanitizedWorkload = CANOPY_HEAP_SANITIZED_WORKLOAD_BIN;

// The user's own ASan options, which must not undo the profiler's default that keeps
// ASan from refusing to run after a preloaded library; exitcode makes the leak's status
// the program's own.
RunOptions with_asan_options() {
  RunOptions options;
  options.env = {{"ASAN_OPTIONS", "detect_leaks=1:exitcode=42"}};
  return options;
}

size_t occurrences(const std::string& text, const std::string& word) {
  size_t count = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + word.size())) {
    ++count;
  }
  return count;
}

TEST(HeapSanitized, AnAsanProgramRunsReportsItsLeakAsItsOwnAndIsNotProfiled) {
  TempDir dir;
  std::string path = dir.file("sanitized.db");
  // 200 blocks of 64 KiB, leaked by the program and again by its forked child (which
  // ends by _exit, unchecked). Had the profiler sampled in front of ASan at 4 KiB, a
  // block would go unsampled with probability exp(-16), and all 200 with exp(-3200):
  // some would carry its frames in the leak's stack, and split the leak in two.
  Finished finished =
      run({kCanopy, "record", "-q", "--heap=4096", "-o", path, "--", kSanitizedWorkload, "leak", "200", "65536"},
          with_asan_options());
  EXPECT_EQ(finished.exit_status, 42) << finished.err;
  EXPECT_EQ(finished.err.find("ASan runtime does not come first"), std::string::npos) << finished.err;
  // One leak, whose stack goes from ASan's operator new[] straight to the program. (Not
  // a count of blocks: LeakSanitizer's scan is conservative, and a stale copy of a
  // pointer on the stack may keep one reachable.)
  EXPECT_EQ(occurrences(finished.err, "Direct leak of "), 1u) << finished.err;
  EXPECT_TRUE(std::regex_search(finished.err, std::regex("Direct leak of [0-9]+ byte\\(s\\) in [0-9]+ object\\(s\\) "
                                                         "allocated from:\n"
                                                         " +#0 0x[0-9a-f]+ in operator new\\[\\]\\(unsigned long\\)"
                                                         " [^\n]*\n"
                                                         " +#1 0x[0-9a-f]+ in allocate [^\n]*heap_sanitized_workload")))
      << finished.err;

  auto reader = open_recording(path);
  auto profile = reader.heap_profile();
  ASSERT_TRUE(profile) << profile.error().message;
  auto processes = reader.processes();
  ASSERT_TRUE(processes) << processes.error().message;
  // The program, its forked child (and any helper ASan clones): each stood aside.
  ASSERT_GE(processes->size(), 2u);
  expect_every_process_stood_aside(*profile, *processes, "sanitizer");

  auto heap_run = run({kCanopy, "heap", path});
  ASSERT_EQ(heap_run.exit_status, 0) << heap_run.err;
  EXPECT_NE(heap_run.out.find("  sanitizer (" + std::to_string(processes->size()) + "): built with a sanitizer"),
            std::string::npos)
      << heap_run.out;
}

// ASan checks that a block is freed as it was allocated: new[] with delete[]. It can
// only if each operator the program calls is ASan's own.
TEST(HeapSanitized, AsanStillSeesAnOperatorMismatch) {
  TempDir dir;
  Finished finished =
      run({kCanopy, "record", "-q", "--heap=4096", "-o", dir.file("mismatch.db"), "--", kSanitizedWorkload, "mismatch"},
          with_asan_options());
  EXPECT_NE(finished.exit_status, 0) << finished.err;
  EXPECT_NE(finished.err.find("alloc-dealloc-mismatch (operator new [] vs operator delete)"), std::string::npos)
      << finished.err;
}

}  // namespace
}  // namespace canopy::testing
