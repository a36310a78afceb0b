// canopy record runs the command in a cgroup of its own (v1 on this machine, the CI
// machine): the whole tree's exact memory beside the sampled sum, and the limits the
// kernel enforces for the whole tree.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

nlohmann::json summary_of(const std::string& path) {
  return nlohmann::json::parse(run({kCanopy, "report", "--json", path}).out);
}

std::string cgroup_meta(const store::Reader& reader) {
  return reader.meta().cgroup.value_or("");
}

TEST(Cgroup, SharedPagesCountOnceInTheTreesFigure) {
  // 10 workers map one 100 MiB region: each one's resident memory holds it.
  TempDir dir;
  std::string path = dir.file("shared.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--", kWorkload, "shared", "10", "100", "1500"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  ASSERT_EQ(cgroup_meta(reader).rfind("cgroup v", 0), 0u) << cgroup_meta(reader);
  auto summary = summary_of(path);
  EXPECT_GE(summary["peak_tree_rss_bytes"].get<int64_t>(), mib(900));
  EXPECT_GE(summary["cgroup_peak_bytes"].get<int64_t>(), mib(100));
  EXPECT_LT(summary["cgroup_peak_bytes"].get<int64_t>(), mib(140));
  EXPECT_NE(result.err.find("peak memory        1."), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("tree peak          1"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("exact, from its cgroup v"), std::string::npos) << result.err;
}

TEST(Cgroup, ItsPeakSeesWhatFellBetweenTwoSamples) {
  // 200 MiB for 30 ms, after a second's sleep, with samples a minute apart: the first
  // tick comes as the command starts and the next one would come long after it ended,
  // so none can fall inside the spike, however long a loaded machine takes to touch
  // 200 MiB (with samples 2 s apart, 7 s of touching under load put ticks inside it).
  TempDir dir;
  std::string path = dir.file("between.canopy");
  auto result = run({kCanopy, "record", "-i", "60000", "-o", path, "--", "sh", "-c",
                     "sleep 1; " + kWorkload + " hold 200 30"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto summary = summary_of(path);
  EXPECT_GE(summary["cgroup_peak_bytes"].get<int64_t>(), mib(200));
  EXPECT_LT(summary["sampled_peak_tree_rss_bytes"].get<int64_t>(), mib(100));
  // The workload's own peak, from its exit record, is a floor for the tree's.
  EXPECT_GE(summary["peak_tree_rss_bytes"].get<int64_t>(), mib(200));
  EXPECT_TRUE(summary["peak_tree_at_least"].get<bool>());
  EXPECT_NE(result.err.find("peak memory        at least 20"), std::string::npos) << result.err;
}

TEST(Cgroup, ItsPeakIsNeverBelowTheMemoryOfTheSameTick) {
  // The peak is read once a second and the memory every tick: the workload's 25 MiB
  // come after the first read of the peak (at the start, before the sleep ends).
  TempDir dir;
  std::string path = dir.file("floor.canopy");
  auto result = run({kCanopy, "record", "-i", "50", "-o", path, "--", "sh", "-c",
                     "sleep 0.3; " + kWorkload + " hold 25 1500"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  ASSERT_EQ(cgroup_meta(reader).rfind("cgroup v", 0), 0u) << cgroup_meta(reader);
  auto ticks = reader.cgroup_ticks();
  ASSERT_TRUE(ticks) << ticks.error().message;
  int64_t most = 0;
  for (const store::CgroupTickRow& tick : *ticks) {
    ASSERT_TRUE(tick.memory_peak_bytes) << "at " << tick.t_ms;
    EXPECT_GE(*tick.memory_peak_bytes, tick.memory_bytes) << "at " << tick.t_ms;
    most = std::max(most, tick.memory_bytes);
  }
  EXPECT_GE(most, mib(25));
}

// The controllers of a v1 meta, "cgroup v1 (memory, cpuacct, freezer) /sys/...", or
// none for any other.
std::vector<std::string> v1_controllers(const std::string& meta) {
  std::vector<std::string> controllers;
  const std::string prefix = "cgroup v1 (";
  if (meta.rfind(prefix, 0) != 0) {
    return controllers;
  }
  std::string list = meta.substr(prefix.size(), meta.find(')') - prefix.size());
  for (size_t start = 0; start <= list.size();) {
    size_t comma = std::min(list.find(", ", start), list.size());
    controllers.push_back(list.substr(start, comma - start));
    start = comma + 2;
  }
  return controllers;
}

TEST(Cgroup, OnV1CpuAndPidsAreJoinedOnlyForTheirLimits) {
  // Each hierarchy joined costs a mkdir, a move and an rmdir: cpu and pids carry only
  // their limits, so without those the command stays out of them.
  TempDir dir;
  std::string plain = dir.file("plain.canopy");
  auto result = run({kCanopy, "record", "-q", "-o", plain, "--", "true"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto joined = v1_controllers(cgroup_meta(open_recording(plain)));
  if (joined.empty()) {
    GTEST_SKIP() << "no cgroup v1 here: " << cgroup_meta(open_recording(plain));
  }
  auto has = [](const std::vector<std::string>& list, const char* name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  EXPECT_TRUE(has(joined, "memory"));
  EXPECT_FALSE(has(joined, "cpu"));
  EXPECT_FALSE(has(joined, "pids"));

  std::string limited = dir.file("limited.canopy");
  result = run({kCanopy, "record", "-q", "-o", limited, "--cpu-limit", "50", "--max-processes", "100", "--", "true"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  joined = v1_controllers(cgroup_meta(open_recording(limited)));
  EXPECT_TRUE(has(joined, "memory"));
  EXPECT_TRUE(has(joined, "cpu"));
  EXPECT_TRUE(has(joined, "pids"));
}

TEST(Cgroup, WithoutOneTheSummarySaysSo) {
  TempDir dir;
  std::string path = dir.file("none.canopy");
  auto result = run({kCanopy, "record", "--no-cgroup", "-o", path, "--", "true"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.err.find("tree peak          not measured: no cgroup (off: --no-cgroup)"), std::string::npos)
      << result.err;
  EXPECT_TRUE(open_recording(path).cgroup_ticks()->empty());
}

TEST(Cgroup, MemoryLimitOomKillNamesTheProcess) {
  TempDir dir;
  std::string path = dir.file("oom.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--memory-limit", "64M", "--", "sh", "-c",
                     kWorkload + " hold 200 300 || exit 9"});
  // The command failed after a limit hit its tree.
  EXPECT_EQ(result.exit_status, 122) << result.err;
  auto reader = open_recording(path);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  const store::ProcessRow* holder = nullptr;
  for (const auto& p : *processes) {
    holder = p.name == "canopy_workload" ? &p : holder;
  }
  ASSERT_TRUE(holder);
  EXPECT_EQ(holder->exit_signal, SIGKILL);
  auto events = limit_events(reader);
  const store::EventRow* oom = nullptr;
  const store::EventRow* reached = nullptr;
  for (const auto& e : events) {
    oom = e.text.rfind("OOM kill: ", 0) == 0 ? &e : oom;
    reached = e.text.rfind("the tree reached its --memory-limit 64.0 MiB", 0) == 0 ? &e : reached;
  }
  ASSERT_TRUE(oom) << "no OOM kill event";
  // The kill says the limit was reached by then, whenever a tick saw the cgroup's
  // counters: the timeline tells them in the order they happened.
  ASSERT_TRUE(reached) << "no event says the limit was reached";
  EXPECT_LE(reached->t_ms, oom->t_ms);
  EXPECT_LT(reached - events.data(), oom - events.data());
  EXPECT_EQ(oom->process_id, holder->id);
  // Its arguments too when they were read before the kill (AnOomKillSaysWhichProcessOfItsName).
  EXPECT_EQ(oom->text.rfind("OOM kill: canopy_workload ", 0), 0u) << oom->text;
  EXPECT_NE(oom->text.find(" (pid " + std::to_string(holder->pid) + ") at "), std::string::npos) << oom->text;
  auto summary = summary_of(path);
  EXPECT_EQ(summary["cgroup_oom_kills"], 1);
  EXPECT_LE(summary["cgroup_peak_bytes"].get<int64_t>(), mib(64));
  // Killed within milliseconds, between samples: its exit record's peak heads the list.
  const auto& top = summary["top"].at(0);
  EXPECT_EQ(top["pid"], holder->pid);
  EXPECT_GE(top["peak_rss_bytes"].get<int64_t>(), mib(48));
  EXPECT_LE(top["peak_rss_bytes"].get<int64_t>(), mib(80));
}

// One cc1plus of many is killed: the line says which, with the words the summary shows
// beside a name (its source file; here the workload's arguments). The workload reads
// its arguments long before it reaches the limit, 16 MiB every 100 ms.
TEST(Cgroup, AnOomKillSaysWhichProcessOfItsName) {
  TempDir dir;
  std::string path = dir.file("oom.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--memory-limit", "64M", "--", "sh", "-c",
                     kWorkload + " leak 16 100 20 0 || exit 9"});
  EXPECT_EQ(result.exit_status, 122) << result.err;
  auto events = limit_events(open_recording(path));
  const store::EventRow* oom = nullptr;
  for (const auto& e : events) {
    oom = e.text.rfind("OOM kill: ", 0) == 0 ? &e : oom;
  }
  ASSERT_TRUE(oom) << "no OOM kill event";
  EXPECT_EQ(oom->text.rfind("OOM kill: canopy_workload leak 16 100 20 0 (pid ", 0), 0u) << oom->text;
  EXPECT_NE(result.err.find("OOM kill: canopy_workload leak 16 100 20 0 (pid "), std::string::npos) << result.err;
}

TEST(Cgroup, CpuLimitHoldsABusyLoopToItsShare) {
  TempDir dir;
  std::string path = dir.file("cpu.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--cpu-limit", "10", "--timeout", "3s", "--", "sh", "-c",
                     "while :; do :; done"});
  EXPECT_EQ(result.exit_status, 124) << result.err;
  auto ticks = open_recording(path).cgroup_ticks();
  ASSERT_TRUE(ticks);
  ASSERT_GE(ticks->size(), 20u);
  double seconds = static_cast<double>(ticks->back().t_ms - ticks->front().t_ms) / 1000;
  double cpu_seconds =
      static_cast<double>(ticks->back().cpu_ns.value_or(0) - ticks->front().cpu_ns.value_or(0)) / 1e9;
  double percent = 100 * cpu_seconds / seconds;
  EXPECT_GE(percent, 7);
  EXPECT_LE(percent, 13);
}

TEST(Cgroup, CpuTimeIsTheWholeTrees) {
  // Two busy loops: together they use the tree's 1 s of CPU in about half a second.
  TempDir dir;
  std::string path = dir.file("cputime.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--cpu-time", "1s", "--kill-grace", "500ms", "--", "sh", "-c",
                     "(while :; do :; done) & while :; do :; done"});
  EXPECT_EQ(result.exit_status, 122) << result.err;
  auto reader = open_recording(path);
  auto events = limit_events(reader);
  ASSERT_FALSE(events.empty());
  EXPECT_NE(events[0].text.find("the tree used up its --cpu-time 1.000 s: SIGTERM to the tree"), std::string::npos)
      << events[0].text;
  auto ticks = reader.cgroup_ticks();
  ASSERT_TRUE(ticks && !ticks->empty());
  EXPECT_GE(ticks->back().cpu_ns.value_or(0), 1'000'000'000);
  EXPECT_LT(ticks->back().cpu_ns.value_or(0), 1'600'000'000);
}

TEST(Cgroup, MaxProcessesRefusesForks) {
  TempDir dir;
  std::string path = dir.file("pids.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--max-processes", "4", "--", "sh", "-c",
                     "for i in 1 2 3 4 5 6 7 8; do sleep 0.5 & done; wait"});
  auto events = limit_events(open_recording(path));
  ASSERT_FALSE(events.empty()) << result.err;
  EXPECT_NE(events[0].text.find("refused: the tree has its --max-processes 4"), std::string::npos) << events[0].text;
}

// Whether a cgroup directory named `name` is left in any hierarchy.
bool cgroup_left(const std::string& name) {
  bool found = false;
  for (const auto& hierarchy : std::filesystem::directory_iterator("/sys/fs/cgroup")) {
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(hierarchy.path(), error);
         it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      found = found || it->path().filename().string() == name;
      if (it.depth() >= 3) {
        it.disable_recursion_pending();
      }
    }
  }
  return found;
}

TEST(Cgroup, WithLimitsNothingOutlivesTheRun) {
  // Under limits the daemon is part of what they bound: it ends with the run.
  TempDir dir;
  Started canopy({kCanopy, "record", "-q", "-o", dir.file("left.canopy"), "--memory-limit", "64M", "--", "sh", "-c",
                  "(setsid sleep 39.25 &); " + kWorkload + " hold 20 100"});
  std::string name = "canopy-" + std::to_string(canopy.pid());
  EXPECT_EQ(canopy.wait().exit_status, 0);
  EXPECT_FALSE(cgroup_left(name));
  EXPECT_EQ(running_with_cmdline(std::string("sleep\0" "39.25\0", 12)), 0);
}

TEST(Cgroup, WithoutLimitsADaemonOutlivesTheRunAsUnderTime) {
  // Nothing bounds it, so canopy changes nothing: it moves the daemon back to canopy's
  // own cgroup and removes its directory.
  TempDir dir;
  Started canopy({kCanopy, "record", "-q", "-o", dir.file("daemon.canopy"), "--", "sh", "-c",
                  "(setsid sleep 39.5 >/dev/null 2>&1 &); " + kWorkload + " hold 20 100"});
  std::string name = "canopy-" + std::to_string(canopy.pid());
  EXPECT_EQ(canopy.wait().exit_status, 0);
  EXPECT_FALSE(cgroup_left(name));
  EXPECT_EQ(running_with_cmdline(std::string("sleep\0" "39.5\0", 11)), 1);
  run({"pkill", "-x", "-f", "sleep 39.5"});
}

}  // namespace
}  // namespace canopy::testing
