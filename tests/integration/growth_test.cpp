// The growth section of `canopy report`: a process that grows steadily and holds it is
// flagged, with the rate the workload leaks at; one whose memory rises under load and
// falls back is not; nor are compilers, which grow until they exit; and nothing is
// claimed of a process too short-lived to judge.
#include <gtest/gtest.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

nlohmann::json growth_of(const std::string& path) {
  auto report = run({kCanopy, "report", "--json", path});
  EXPECT_EQ(report.exit_status, 0) << report.err;
  return nlohmann::json::parse(report.out)["growth"];
}

TEST(Growth, ASteadyLeakIsFlaggedWithItsRate) {
  // 8 MiB more every 200 ms for 4 s (2,400 MiB/min, 160 MiB), kept while idle 1.5 s.
  TempDir dir;
  std::string path = dir.file("leak.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--", kWorkload, "leak", "8", "200", "20", "1500"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto growth = growth_of(path);
  ASSERT_EQ(growth["judged"].get<int64_t>(), 1);
  ASSERT_EQ(growth["findings"].size(), 1u);
  const auto& leak = growth["findings"][0];
  EXPECT_EQ(leak["verdict"], "steady");
  EXPECT_TRUE(leak["monotonic"].get<bool>());
  EXPECT_GE(leak["r_squared"].get<double>(), 0.9);
  // The rate, from the growing part alone, against the rate the workload says it kept:
  // its schedule is 2,400 MiB/min, but a loaded machine can run its steps late. A few
  // late or early steps within the growing part still move the fit a little.
  double kept_mib_per_min = 0;
  ASSERT_EQ(std::sscanf(result.out.c_str(), "leaked at %lf MiB/min", &kept_mib_per_min), 1) << result.out;
  EXPECT_LE(leak["slope_bytes_per_min"].get<double>(), kept_mib_per_min * 1.20 * mib(1));
  EXPECT_GE(leak["slope_bytes_per_min"].get<double>(), kept_mib_per_min * 0.80 * mib(1));
  EXPECT_GE(leak["max_bytes"].get<int64_t>() - leak["start_bytes"].get<int64_t>(), mib(120));
  // Asleep for the last 1.5 s, holding it all (unmapping 160 MiB at its exit takes
  // CPU, but that is not counted as work while alive).
  EXPECT_GE(leak["idle_after_max_ms"].get<int64_t>(), 1000);
  // It exited, but only after holding it idle for over a tenth of its life.
  EXPECT_EQ(leak["ending"], "exited");
  EXPECT_EQ(growth["exited_while_busy"].get<int64_t>(), 0);

  auto text = run({kCanopy, "report", path}).out;
  EXPECT_NE(text.find("  memory growth:\n    canopy_workload  pid "), std::string::npos) << text;
  EXPECT_NE(text.find(" grew steadily "), std::string::npos) << text;
  EXPECT_NE(text.find(", and still held it when it exited, after 1."), std::string::npos) << text;
  // Resident memory alone is not a leak (DESIGN.md): the report does not say one.
  EXPECT_EQ(text.find("a leak"), std::string::npos) << text;
  // The summary at the end of the recording says it too.
  EXPECT_NE(result.err.find(" grew steadily "), std::string::npos) << result.err;

  // The list of every finding has the same line.
  auto list = run({kCanopy, "report", path, "--growth"});
  EXPECT_EQ(list.exit_status, 0) << list.err;
  EXPECT_EQ(list.out.rfind("  memory growth:\n    canopy_workload  pid ", 0), 0u) << list.out;
  EXPECT_NE(list.out.find(", and still held it when it exited, after 1."), std::string::npos) << list.out;
}

TEST(Growth, AHeapProfilesNoLeakDoesNotHideResidentGrowthOutsideIt) {
  // The same leak, recorded with --heap: the workload maps its memory itself, which no
  // heap profile sees. The summary takes its growth section from the heap profile, and
  // still shows what resident memory saw beyond it.
  TempDir dir;
  std::string path = dir.file("mapped.canopy");
  auto result = run({kCanopy, "record", "--heap", "-o", path, "--", kWorkload, "leak", "8", "200", "20", "1500"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  for (const std::string& text : {result.err, run({kCanopy, "report", path}).out}) {
    EXPECT_NE(text.find("  memory growth      no leak in the heap profile of 1 process image"), std::string::npos)
        << text;
    EXPECT_NE(text.find("\n    but resident memory grew beyond what the heap profile sees (mmap, a runtime's heap, "
                        "freed memory kept):\n    canopy_workload  pid "),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(" grew steadily "), std::string::npos) << text;
  }
  auto list = run({kCanopy, "report", path, "--growth"});
  EXPECT_NE(list.out.find("\n    but resident memory grew beyond what the heap profile sees"), std::string::npos)
      << list.out;
}

TEST(Growth, GrowingWhenTheRecordingStopsTheTreeIsStillHeld) {
  // 4 MiB more every 200 ms for 20 s, stopped by --timeout at 5 s while still growing:
  // it did not end on its own, so it is judged up to the stop.
  TempDir dir;
  std::string path = dir.file("stopped.canopy");
  auto result =
      run({kCanopy, "record", "--timeout", "5s", "-o", path, "--", kWorkload, "leak", "4", "200", "100", "0"});
  ASSERT_EQ(result.exit_status, 124) << result.err;
  auto growth = growth_of(path);
  ASSERT_EQ(growth["findings"].size(), 1u) << growth.dump();
  const auto& leak = growth["findings"][0];
  EXPECT_EQ(leak["verdict"], "steady");
  EXPECT_EQ(leak["ending"], "stopped");
  EXPECT_LE(leak["span_ms"].get<int64_t>(), 5200);  // up to the stop, not the shutdown after
  auto text = run({kCanopy, "report", path}).out;
  EXPECT_NE(text.find(", and still held it when the recording stopped it"), std::string::npos) << text;
}

TEST(Growth, AWorkingSetThatIsGivenBackIsNotALeak) {
  // 120 MiB touched over 1.5 s of busy CPU, given back, then 2.5 s asleep.
  TempDir dir;
  std::string path = dir.file("wave.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--", kWorkload, "wave", "120", "1500", "2500"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto growth = growth_of(path);
  ASSERT_EQ(growth["judged"].get<int64_t>(), 1);
  ASSERT_EQ(growth["findings"].size(), 1u);
  const auto& wave = growth["findings"][0];
  EXPECT_EQ(wave["verdict"], "returned");
  // Judged from the end of its first tenth (start-up), when some of it was touched.
  EXPECT_GE(wave["max_bytes"].get<int64_t>() - wave["start_bytes"].get<int64_t>(), mib(60));
  EXPECT_LT(wave["end_bytes"].get<int64_t>(), wave["start_bytes"].get<int64_t>() + mib(10));
  EXPECT_TRUE(wave["idle_at_end"].get<bool>());
  auto text = run({kCanopy, "report", path}).out;
  EXPECT_NE(text.find("under load and came back down to "), std::string::npos) << text;
  EXPECT_NE(text.find(" once idle\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("grew steadily"), std::string::npos) << text;
  EXPECT_EQ(text.find("still held"), std::string::npos) << text;
}

TEST(Growth, NoClaimWithoutEnoughSamples) {
  // The same leak for 1 s, sampled every second: judging takes 30 ticks, which no
  // slowdown short of thirtyfold stretches it to.
  TempDir dir;
  std::string path = dir.file("brief.canopy");
  auto result =
      run({kCanopy, "record", "--interval", "1000", "-o", path, "--", kWorkload, "leak", "8", "100", "10", "0"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto growth = growth_of(path);
  EXPECT_EQ(growth["judged"].get<int64_t>(), 0);
  EXPECT_TRUE(growth["findings"].empty());
  auto text = run({kCanopy, "report", path}).out;
  EXPECT_NE(text.find("  memory growth      not judged: no process lived 3.000 s and 30 ticks\n"), std::string::npos)
      << text;
}

TEST(Growth, TheListAndJsonAreOneOrTheOther) {
  TempDir dir;
  std::string path = dir.file("brief.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-o", path, "--", kWorkload, "leak", "8", "100", "2", "0"}).exit_status, 0);
  auto both = run({kCanopy, "report", path, "--growth", "--json"});
  EXPECT_NE(both.exit_status, 0);
  EXPECT_NE(both.err.find("--json excludes --growth"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace canopy::testing
