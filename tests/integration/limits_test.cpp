// canopy record under resource limits: the timeout stops the whole tree, per-process
// limits reach the command, and each limit that bites is on the timeline, in the
// summary and in the exit status.
#include <gtest/gtest.h>
#include <signal.h>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

// The daemon leaves the session and ignores SIGTERM: only SIGKILL stops it. With a
// cgroup, canopy kills every member; without, every process the sampler knows.
// `daemon_sleep` and `root_sleep` name this test's processes: ctest runs the two
// variants at once, and each must not count the other's.
void timeout_stops_the_whole_tree(const std::vector<std::string>& flags, const std::string& daemon_sleep,
                                  const std::string& root_sleep) {
  TempDir dir;
  std::string path = dir.file("timeout.canopy");
  std::vector<std::string> argv{kCanopy, "record", "-o", path, "--timeout", "1s", "--kill-grace", "500ms"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"--", "sh", "-c",
                           "(setsid sh -c 'trap \"\" TERM; exec sleep " + daemon_sleep + "' &); sleep " + root_sleep});
  auto result = run(argv);
  EXPECT_EQ(result.exit_status, 124) << result.err;
  using namespace std::string_literals;
  EXPECT_EQ(running_with_cmdline("sleep\0"s + daemon_sleep + '\0'), 0) << "the daemon outlived the run";
  EXPECT_EQ(running_with_cmdline("sleep\0"s + root_sleep + '\0'), 0);

  auto reader = open_recording(path);
  auto events = limit_events(reader);
  ASSERT_EQ(events.size(), 2u);
  int64_t start_ms = *reader.meta().start_ms;
  EXPECT_GE(events[0].t_ms - start_ms, 1000);
  EXPECT_NE(events[0].text.find("--timeout 1.000 s is up: SIGTERM to the tree"), std::string::npos) << events[0].text;
  EXPECT_GE(events[1].t_ms - events[0].t_ms, 500);
  EXPECT_NE(events[1].text.find("SIGKILL to the tree (1 process)"), std::string::npos) << events[1].text;
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  for (const auto& p : *processes) {
    EXPECT_TRUE(p.end_ms) << p.name << " pid " << p.pid << " left running";
  }
  EXPECT_NE(result.err.find("limits             +1."), std::string::npos) << result.err;
}

TEST(Limits, TimeoutStopsTheWholeTreeDaemonsIncluded) { timeout_stops_the_whole_tree({}, "37.25", "37.5"); }

TEST(Limits, TimeoutWithoutACgroupStopsTheWholeTreeToo) {
  timeout_stops_the_whole_tree({"--no-cgroup"}, "38.25", "38.5");
}

TEST(Limits, CpuTimeWithoutACgroupIsPerProcess) {
  // RLIMIT_CPU: SIGXCPU after 1 s of CPU. The command fails, and a limit hit it: 122.
  TempDir dir;
  std::string path = dir.file("cpu.canopy");
  auto result =
      run({kCanopy, "record", "-o", path, "--no-cgroup", "--cpu-time", "1s", "--", "sh", "-c", "while :; do :; done"});
  EXPECT_EQ(result.exit_status, 122) << result.err;
  auto reader = open_recording(path);
  auto events = limit_events(reader);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].text.find("used up its CPU time (--cpu-time 1.000 s, per process): SIGXCPU after"),
            std::string::npos)
      << events[0].text;
  // Named as the summary names it, with the words that tell it from others of its name.
  EXPECT_EQ(events[0].text.rfind("sh -c while :; do :; done (pid ", 0), 0u) << events[0].text;
  EXPECT_EQ(events[0].process_id, 1);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  EXPECT_EQ(processes->front().exit_signal, SIGXCPU);
  // The kernel checks RLIMIT_CPU against its tick-sampled user+system time, which on a
  // busy machine runs well ahead of the exact run time: beside stress-ng and a fork
  // churn, SIGXCPU came after 0.80 to 0.93 s of it. So the process's CPU is held to the
  // kernel's own exact account of the tree (getrusage of the waited-for children, the
  // loop being all of it), not to the limit. The exit record is taken as the process
  // starts to exit, so it may fall short of that account by the exit alone.
  ASSERT_EQ(reader.meta().exit_records.value_or(""), "taskstats");
  int64_t cpu_ns = processes->front().cpu_user_ns.value_or(0) + processes->front().cpu_system_ns.value_or(0);
  int64_t tree_ns = reader.meta().tree_cpu_user_ns.value_or(0) + reader.meta().tree_cpu_system_ns.value_or(0);
  EXPECT_LE(cpu_ns, tree_ns + 2'000);  // getrusage truncates each figure to a microsecond
  EXPECT_GE(cpu_ns, tree_ns - 50'000'000) << "the exit took 50 ms of CPU?";
  EXPECT_GT(cpu_ns, 0);
  EXPECT_LT(cpu_ns, 2'100'000'000);  // SIGKILL follows SIGXCPU a second later
}

TEST(Limits, NiceAndCpusReachTheCommandAndItsChildren) {
  TempDir dir;
  auto result = run({kCanopy, "record", "-q", "-o", dir.file("nice.canopy"), "--nice", "7", "--cpus", "0", "--", "sh",
                "-c", "nice; sh -c 'grep Cpus_allowed_list /proc/self/status'"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "7\nCpus_allowed_list:\t0\n");
}

TEST(Limits, BadLimitsGetOneLineAndRunNothing) {
  TempDir dir;
  std::string path = dir.file("bad.canopy");
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  } cases[] = {
      {{"--cpus", "4096"}, "canopy: --cpus '4096': CPU 4096 is not one this process may use\n"},
      {{"--cpus", "1-0"}, "canopy: --cpus '1-0': expected CPU numbers and ranges such as 0,2-3\n"},
      {{"--cpus", ""}, "canopy: --cpus '': no CPU given\n"},  // not taken as no --cpus at all
      {{"--no-cgroup", "--cpu-limit", "10"}, "canopy: --cpu-limit needs a cgroup, and there is none (off: --no-cgroup)\n"},
      {{"--timeout", "5"}, "canopy: --timeout '5': not a duration such as 10m, 90s or 500ms\n"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv{kCanopy, "record", "-o", path};
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    argv.insert(argv.end(), {"--", "touch", dir.file("ran")});
    auto result = run(argv);
    EXPECT_NE(result.exit_status, 0) << c.flags[0];
    EXPECT_EQ(result.err, c.message);
    EXPECT_FALSE(std::filesystem::exists(path)) << c.flags[0];
    EXPECT_FALSE(std::filesystem::exists(dir.file("ran"))) << c.flags[0];
  }
  auto attach = run({kCanopy, "record", "--pid", std::to_string(::getpid()), "--timeout", "1s"});
  EXPECT_EQ(attach.exit_status, 125);
  EXPECT_EQ(attach.err, "canopy: resource limits apply to a command canopy runs, not to one it attaches to (--pid)\n");
}

}  // namespace
}  // namespace canopy::testing
