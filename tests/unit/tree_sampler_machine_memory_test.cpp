// The sampler reads the machine's memory (/proc/meminfo) about ten times a second at
// most, whatever the interval: here from a file the test writes before each tick, so
// each tick's row shows which reading it carries.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "probe/system.h"
#include "record/tree_sampler.h"
#include "store/reader.h"
#include "support/temp_dir.h"

namespace canopy::record {
namespace {

using canopy::testing::TempDir;

// A child that waits to be killed, killed and reaped however the test ends.
struct PausedChild {
  PausedChild() : pid(::fork()) {
    if (pid == 0) {
      ::pause();
      ::_exit(0);
    }
  }
  ~PausedChild() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  const pid_t pid;
};

TEST(TreeSamplerMachineMemory, ReadAtMostTenTimesASecond) {
  TempDir dir;
  std::string path = dir.file("machine.canopy");
  std::string meminfo = dir.file("meminfo");
  auto set_available = [&](int64_t mib) {
    std::ofstream(meminfo) << "MemTotal: 1048576 kB\nMemAvailable: " << mib * 1024
                           << " kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n";
  };
  set_available(1);
  PausedChild child;
  ASSERT_GT(child.pid, 0);
  {
    auto writer = store::Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    TreeSampler sampler(*writer, probe::read_host_info(), {.meminfo_path = meminfo.c_str()});
    ASSERT_TRUE(sampler.add_root(child.pid, 0));
    // Ticks 10 ms apart from 100 ms; before each, the file says the tick's time in MiB.
    for (int64_t t = 100; t <= 320; t += 10) {
      set_available(t);
      sampler.tick(t);
    }
    sampler.finish(320);
    ASSERT_TRUE(writer->finish());
  }

  auto reader = store::Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  auto ticks = reader->ticks();
  ASSERT_TRUE(ticks) << ticks.error().message;
  ASSERT_EQ(ticks->size(), 23u);
  for (const auto& tick : *ticks) {
    // Read at 100, 200 and 300 ms (95 ms or more apart), each reading carried on.
    int64_t read_at = tick.t_ms < 200 ? 100 : tick.t_ms < 300 ? 200 : 300;
    EXPECT_EQ(tick.mem_available_bytes, read_at << 20) << "tick at " << tick.t_ms << " ms";
    EXPECT_EQ(tick.mem_total_bytes, int64_t{1} << 30);
  }
}

}  // namespace
}  // namespace canopy::record
