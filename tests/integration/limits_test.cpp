// canopy record under resource limits: the timeout stops the whole tree, per-process
// limits reach the command, and each limit that bites is on the timeline, in the
// summary and in the exit status.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

// Processes on the machine whose command line is exactly `cmdline` (NUL-separated).
int running_with_cmdline(const std::string& cmdline) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream file(entry.path() / "cmdline");
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    count += text == cmdline;
  }
  return count;
}

std::vector<store::EventRow> limit_events(const store::Reader& reader) {
  auto events = reader.events_of_kind("limit");
  EXPECT_TRUE(events);
  return events ? *events : std::vector<store::EventRow>{};
}

TEST(Limits, TimeoutStopsTheWholeTreeDaemonsIncluded) {
  // The daemon leaves the session and ignores SIGTERM: only SIGKILL stops it.
  TempDir dir;
  std::string path = dir.file("timeout.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--timeout", "1s", "--kill-grace", "500ms", "--", "sh", "-c",
                     "(setsid sh -c 'trap \"\" TERM; exec sleep 37.25' &); sleep 37.5"});
  EXPECT_EQ(result.exit_status, 124) << result.err;
  EXPECT_EQ(running_with_cmdline(std::string("sleep\0" "37.25\0", 12)), 0) << "the daemon outlived the run";
  EXPECT_EQ(running_with_cmdline(std::string("sleep\0" "37.5\0", 11)), 0);

  auto reader = open_recording(path);
  auto events = limit_events(reader);
  ASSERT_EQ(events.size(), 2u);
  int64_t start_ms = *reader.meta_int("start_ms");
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

TEST(Limits, CpuTimeWithoutACgroupIsPerProcess) {
  // RLIMIT_CPU: SIGXCPU after 1 s of CPU. The command fails, and a limit hit it: 122.
  TempDir dir;
  std::string path = dir.file("cpu.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--cpu-time", "1s", "--", "sh", "-c", "while :; do :; done"});
  EXPECT_EQ(result.exit_status, 122) << result.err;
  auto reader = open_recording(path);
  auto events = limit_events(reader);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].text.find("used up its CPU time (--cpu-time 1.000 s, per process): SIGXCPU after"),
            std::string::npos)
      << events[0].text;
  EXPECT_EQ(events[0].process_id, 1);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  EXPECT_EQ(processes->front().exit_signal, SIGXCPU);
  int64_t cpu_ns = processes->front().cpu_user_ns.value_or(0) + processes->front().cpu_system_ns.value_or(0);
  EXPECT_GE(cpu_ns, 1'000'000'000);
  EXPECT_LT(cpu_ns, 2'100'000'000);
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
      {{"--cpu-limit", "10"}, "canopy: --cpu-limit needs a cgroup, and canopy does not run commands in cgroups yet\n"},
      {{"--timeout", "5"}, "canopy: --timeout: Missing mandatory unit (see 'canopy record --help')\n"},
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
