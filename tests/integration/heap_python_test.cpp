// record --heap on a Python program: CPython's small objects come from its own arenas
// (pymalloc), which no malloc hook sees, unless PYTHONMALLOC=malloc sends them through
// malloc. canopy sets it for the tree, and keeps a PYTHONMALLOC the user set. And
// CPython 3.12 or later, run with -X perf, names its Python functions in the stacks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

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

// A CPython of 3.12 or later, which -X perf makes call each Python function through a
// trampoline named in its perf map: on the PATH, else one of pyenv's. Debian 12 ships
// 3.11 only.
std::optional<std::string> python_with_perf_trampolines() {
  std::vector<std::string> candidates = {"python3.14", "python3.13", "python3.12"};
  const char* home = std::getenv("HOME");
  const char* pyenv_root = std::getenv("PYENV_ROOT");
  const std::string versions = (pyenv_root ? std::string(pyenv_root) : std::string(home ? home : "") + "/.pyenv") +
                               "/versions";
  std::error_code error;
  for (const auto& version : std::filesystem::directory_iterator(versions, error)) {
    candidates.push_back((version.path() / "bin" / "python3").string());
  }
  for (const std::string& candidate : candidates) {
    auto asked = run({"/usr/bin/env", candidate, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"});
    if (asked.exit_status == 0) {
      return candidate;
    }
  }
  return std::nullopt;
}

// A function that keeps 1 MiB a call, 40 calls 50 ms apart, which the snapshots 100 ms
// apart see growing: its stack holds the most at the highest snapshot. Each block is
// sampled at 64 KiB with p = 1 - e^-16, so none is with probability below e^-640.
TEST(HeapPython, UnderXPerfTheHeapIsNamedByThePythonFunction) {
  auto python = python_with_perf_trampolines();
  if (!python) {
    GTEST_SKIP() << "no CPython 3.12 or later on the PATH or under ~/.pyenv/versions";
  }
  TempDir dir;
  const std::string script = dir.file("grow.py");
  write_file(script,
             "import time\n"
             "held = []\n"
             "def grow_cache():\n"
             "    held.append(bytearray(1 << 20))\n"
             "for _ in range(40):\n"
             "    grow_cache()\n"
             "    time.sleep(0.05)\n");
  const std::string path = dir.file("python_perf.canopy");
  auto recorded = run({kCanopy, "record", "-q", "--heap=" + std::to_string(kPythonRateBytes), "--heap-interval",
                       "100ms", "-o", path, "--", "/usr/bin/env", *python, "-X", "perf", script});
  ASSERT_EQ(recorded.exit_status, 0) << recorded.err;
  auto heap = run({kCanopy, "heap", "--json", "--frames", "20", path});
  ASSERT_EQ(heap.exit_status, 0) << heap.err;
  auto json = nlohmann::json::parse(heap.out);
  bool named = false;
  for (const auto& image : json["images"]) {
    RemovedAtEnd perf_map("/tmp/perf-" + std::to_string(image["pid"].get<int64_t>()) + ".map");
    for (const char* moment : {"at_peak", "at_end"}) {
      if (image[moment].is_null()) {
        continue;
      }
      for (const auto& stack : image[moment]["stacks"]) {
        for (const auto& frame : stack["frames"]) {
          named = named || frame["function"] == "py::grow_cache:" + script;
        }
      }
    }
  }
  EXPECT_TRUE(named) << heap.out;
}

}  // namespace
}  // namespace canopy::testing
