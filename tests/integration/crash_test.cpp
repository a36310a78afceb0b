// Nothing lost: a recorder killed with SIGKILL leaves a recording that opens, with
// samples up to at most one second before the kill.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

TEST(Crash, KillNineLeavesAReadableRecording) {
  TempDir dir;
  std::string path = dir.file("killed.canopy");
  Started canopy({kCanopy, "record", "-o", path, "--", kWorkload, "hold", "25", "30000"});
  // Killed once a sample has the command holding all of it, however long a loaded
  // machine takes to get there.
  bool holding = wait_for_recording(path, [](const store::Reader& live) {
    int64_t most_bytes = 0;
    auto read = live.for_each_sample([&](int64_t, int64_t, const store::SampleValues& v) {
      most_bytes = std::max(most_bytes, v[store::kRssAnonBytes].value_or(0));
    });
    return read && most_bytes >= mib(25);
  });
  ASSERT_TRUE(holding) << "canopy never recorded the command holding 25 MiB";
  std::ifstream children("/proc/" + std::to_string(canopy.pid()) + "/task/" + std::to_string(canopy.pid()) +
                         "/children");
  pid_t command = 0;
  ASSERT_TRUE(children >> command);
  int64_t killed_at_ms = epoch_ms();
  canopy.signal(SIGKILL);
  // The command outlives its recorder (as with `time`) and holds its output pipes.
  ::kill(command, SIGKILL);
  canopy.wait();

  auto report = run({kCanopy, "report", path});
  ASSERT_EQ(report.exit_status, 0) << report.err;
  EXPECT_NE(report.out.find("recording interrupted"), std::string::npos) << report.out;

  auto reader = open_recording(path);
  EXPECT_FALSE(reader.meta().end_ms);
  auto ticks = reader.ticks();
  ASSERT_TRUE(ticks);
  ASSERT_FALSE(ticks->empty());
  EXPECT_GE(ticks->back().t_ms, killed_at_ms - 1000);
  auto peaks = anon_peaks(reader);
  EXPECT_NEAR(static_cast<double>(peaks[1]), mib(25), mib(25) * 0.05);
  // The summary derives the peak of the process that never ended from its samples.
  auto json = run({kCanopy, "report", "--json", path});
  EXPECT_NE(json.out.find("\"complete\": false"), std::string::npos) << json.out;
}

}  // namespace
}  // namespace canopy::testing
