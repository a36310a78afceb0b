// record --heap on a Python program: CPython's small objects come from its own arenas
// (pymalloc), which no malloc hook sees, unless PYTHONMALLOC=malloc sends them through
// malloc. canopy sets it for the tree, and keeps a PYTHONMALLOC the user set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

// Keeps kPythonObjects bytes objects of kPythonLength zero bytes each: CPython
// allocates each in one block of its header (33 bytes) and the bytes with their
// terminating NUL.
constexpr int64_t kPythonObjects = 400'000;
constexpr int64_t kPythonLength = 200;
constexpr int64_t kPythonBlockBytes = 33 + kPythonLength + 1;
constexpr int64_t kPythonKeptBytes = kPythonObjects * kPythonBlockBytes;
constexpr int64_t kPythonRateBytes = 64 * 1024;

// The highest heap in use the profile estimated for the program, run with `env`.
int64_t python_heap_peak(const std::map<std::string, std::string>& env) {
  TempDir dir;
  std::string path = dir.file("python.canopy");
  const std::string program = "keep = [bytes(" + std::to_string(kPythonLength) + ") for _ in range(" +
                              std::to_string(kPythonObjects) + ")]";
  RunOptions options;
  options.env = env;
  auto result = run({kCanopy, "record", "-q", "--heap=" + std::to_string(kPythonRateBytes), "-o", path, "--",
                     "/usr/bin/python3", "-c", program},
                    options);
  EXPECT_EQ(result.exit_status, 0) << result.err;
  auto profile = open_recording(path).heap_profile();
  EXPECT_TRUE(profile.ok()) << profile.error().message;
  int64_t peak = 0;
  for (const store::HeapSnapshotRow& snapshot : profile->snapshots) {
    peak = std::max({peak, snapshot.in_use_bytes, snapshot.peak_in_use_bytes});
  }
  return peak;
}

// Each block is sampled with p = 1 - exp(-234 / 65536) = 0.00356: about 1,425 of the
// 400,000 are, and the estimate of what they hold deviates by 1 / sqrt(1425) = 2.6%.
// Missing by a quarter is over 9 deviations: the chance is below 1e-9.
TEST(HeapPython, SmallObjectsAreSeenThroughMalloc) {
  int64_t peak = python_heap_peak({{"PYTHONMALLOC", ""}});
  EXPECT_GT(peak, 0.75 * kPythonKeptBytes);
  // The list that holds them (3.2 MB of pointers) and the interpreter's own few MB.
  EXPECT_LT(peak, 1.25 * kPythonKeptBytes);
}

TEST(HeapPython, APymallocTheUserAskedForIsKept) {
  // pymalloc serves every one of them from its arenas: malloc sees the list, and the
  // interpreter's own few MB.
  EXPECT_LT(python_heap_peak({{"PYTHONMALLOC", "pymalloc"}}), 0.25 * kPythonKeptBytes);
}

}  // namespace
}  // namespace canopy::testing
