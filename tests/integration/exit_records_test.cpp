// What the kernel knows of brief processes, and what the recording says of them: their
// CPU time is the taskstats exit record's (never a mix of it and the samples), the tree's
// is the kernel's own account of waited-for children, every exec the kernel reports is
// an exec event, and a process gone before canopy could read it is named by its exit
// record. The test listens to the exit records itself, beside canopy.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "integration/harness.h"
#include "probe/system.h"
#include "probe/task_exits.h"

namespace canopy::testing {
namespace {

// The exit records of every process on the machine that ends while it is open.
class KernelExitRecords {
 public:
  KernelExitRecords() {
    auto opened = probe::TaskExitListener::open(probe::read_host_info().cpu_count);
    if (!opened) {
      ADD_FAILURE() << opened.error().message;
      return;
    }
    listener_.emplace(std::move(*opened));
  }
  // The leader thread's record of `pid` (the processes here have no other threads),
  // once all records so far are in. PIDs are handed out in turn from 32768 or more, so
  // two processes with one PID within a test's few seconds would be a surprise: that
  // fails the test rather than pick one.
  std::optional<probe::TaskExit> of(int64_t pid) {
    if (listener_) {
      listener_->drain([&](const probe::TaskExit& e) {
        if (e.tid == e.tgid) {
          by_pid_.emplace(e.tgid, e);
        }
      });
      EXPECT_EQ(listener_->lost(), 0);
    }
    auto [first, last] = by_pid_.equal_range(static_cast<pid_t>(pid));
    if (first == last) {
      return std::nullopt;
    }
    EXPECT_EQ(std::next(first), last) << "two processes ended with pid " << pid;
    return first->second;
  }

 private:
  std::optional<probe::TaskExitListener> listener_;
  std::multimap<pid_t, probe::TaskExit> by_pid_;
};

nlohmann::json summary_json(const std::string& path) {
  auto report = run({kCanopy, "report", "--json", path});
  EXPECT_EQ(report.exit_status, 0) << report.err;
  return nlohmann::json::parse(report.out);
}

TEST(ExitRecords, EachProcessHasItsRecordsCpuAndTheTreeTheKernelsTotal) {
  // Eight sleeps at once: each runs about a millisecond, mostly before the first tick
  // that would count it, so samples and records split its CPU differently.
  KernelExitRecords kernel;
  TempDir dir;
  std::string path = dir.file("sleeps.canopy");
  auto result = run({kCanopy, "record", "-q", "-i", "20", "-o", path, "--", "sh", "-c",
                     "for i in 1 2 3 4 5 6 7 8; do /bin/sleep 0.3 & done; wait"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 9u);
  int64_t processes_cpu_ns = 0;
  for (const auto& p : *processes) {
    SCOPED_TRACE(p.name + " pid " + std::to_string(p.pid));
    auto record = kernel.of(p.pid);
    ASSERT_TRUE(record);
    EXPECT_EQ(p.cpu_user_ns, record->cpu_user_ns);
    EXPECT_EQ(p.cpu_system_ns, record->cpu_system_ns);
    processes_cpu_ns += p.cpu_user_ns.value_or(0) + p.cpu_system_ns.value_or(0);
  }
  // Every process ended and was waited for: the tree's CPU is the kernel's account of
  // the recorder's children (getrusage), as `time` reports it. A record is taken as
  // the process starts to exit, before it lets go of its memory and files, so the
  // processes' sum cannot exceed it.
  auto tree_user_ns = reader.meta().tree_cpu_user_ns;
  auto tree_system_ns = reader.meta().tree_cpu_system_ns;
  ASSERT_TRUE(tree_user_ns && tree_system_ns);
  auto summary = summary_json(path);
  EXPECT_TRUE(summary["cpu_exact"].get<bool>());
  EXPECT_EQ(summary["cpu_user_ns"].get<int64_t>(), *tree_user_ns);
  EXPECT_EQ(summary["cpu_system_ns"].get<int64_t>(), *tree_system_ns);
  EXPECT_LE(processes_cpu_ns, *tree_user_ns + *tree_system_ns);
}

TEST(ExitRecords, EveryExecOfTheLoopIsAnEvent) {
  // 20 sleeps of 50 ms one after another, sampled every 100 ms: most execs happen
  // before the recorder reads the process the fork event told it of.
  TempDir dir;
  std::string path = dir.file("loop.canopy");
  auto result = run({kCanopy, "record", "-q", "-i", "100", "-o", path, "--", "sh", "-c",
                     "for i in $(seq 20); do /bin/sleep 0.05; done"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  ASSERT_EQ(reader.meta().process_events_lost, 0);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  std::map<int64_t, std::string> name_of;
  for (const auto& p : *processes) {
    name_of[p.id] = p.name;
  }
  auto execs = reader.events_of_kind("exec");
  ASSERT_TRUE(execs);
  std::map<std::string, int> execs_by_name;
  for (const auto& e : *execs) {
    ASSERT_TRUE(e.process_id);
    ++execs_by_name[name_of[*e.process_id]];
  }
  // The workload's execs: seq in the command substitution, then each sleep. The root's
  // own exec is canopy starting the command, not one of them.
  EXPECT_EQ(execs_by_name, (std::map<std::string, int>{{"seq", 1}, {"sleep", 20}}));
}

TEST(ExitRecords, EveryBriefChildIsNamedAsItExecd) {
  // 300 /bin/true one after another: each forks from sh, execs and ends within a few
  // milliseconds, often before canopy reads its new name and arguments.
  constexpr int kChildren = 300;
  TempDir dir;
  std::string path = dir.file("true.canopy");
  auto result = run({kCanopy, "record", "-q", "-o", path, "--", "sh", "-c",
                     "for i in $(seq " + std::to_string(kChildren) + "); do /bin/true; done"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  ASSERT_EQ(reader.meta().process_events_lost, 0);
  ASSERT_EQ(reader.meta().exit_records_lost, 0);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  std::map<std::string, int> by_name;
  for (const auto& p : *processes) {
    ++by_name[p.name];
    if (p.name == "true") {
      // Its own arguments, or none when it was gone before they could be read (then
      // its exit record named it): never its parent's.
      SCOPED_TRACE("pid " + std::to_string(p.pid) + ": " + store::json_string_array(p.cmdline));
      if (p.named_from_exit_record) {
        EXPECT_TRUE(p.cmdline.empty());
        EXPECT_TRUE(p.exe.empty());
      } else {
        EXPECT_EQ(p.cmdline, std::vector<std::string>{"/bin/true"});
        // Its executable, or none when it exited between the reads of its command
        // line and of its exe link (gone with its memory): never sh's.
        EXPECT_TRUE(p.exe == "/usr/bin/true" || p.exe.empty()) << p.exe;
      }
    }
  }
  EXPECT_EQ(by_name, (std::map<std::string, int>{{"sh", 1}, {"seq", 1}, {"true", kChildren}}));
  auto execs = reader.events_of_kind("exec");
  ASSERT_TRUE(execs);
  EXPECT_EQ(execs->size(), static_cast<size_t>(kChildren + 1));
}

}  // namespace
}  // namespace canopy::testing
