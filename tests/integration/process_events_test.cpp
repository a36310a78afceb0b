// Short-lived processes: 500 children of about 5 ms each, one after another, exiting
// with status i % 8 (canopy_workload churn). Polling every 100 ms cannot see most of
// them; the kernel's process events and taskstats exit records see every one.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

constexpr int kChildren = 500;

TEST(ProcessEvents, EveryBriefChildWithItsExitStatus) {
  TempDir dir;
  std::string path = dir.file("churn.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--", kWorkload, "churn", std::to_string(kChildren), "5"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  // This machine (CI's) lets canopy listen; elsewhere the meta says why not.
  ASSERT_EQ(reader.meta().process_events.value_or(""), "netlink");
  ASSERT_EQ(reader.meta().exit_records.value_or(""), "taskstats");
  EXPECT_EQ(reader.meta().process_events_lost, 0);

  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), static_cast<size_t>(kChildren + 1));
  const store::ProcessRow& root = processes->front();
  EXPECT_EQ(root.exit_code, 0);
  std::vector<store::ProcessRow> children(processes->begin() + 1, processes->end());
  // Children forked in the same millisecond keep the order of their fork events (their
  // ids): the workload's i-th child exits with i % 8.
  std::stable_sort(children.begin(), children.end(),
                   [](const auto& a, const auto& b) { return a.start_ms < b.start_ms; });
  int with_own_cmdline = 0;
  for (size_t i = 0; i < children.size(); ++i) {
    const auto& child = children[i];
    SCOPED_TRACE("child " + std::to_string(i) + ", pid " + std::to_string(child.pid));
    EXPECT_EQ(child.parent_id, root.id);
    EXPECT_EQ(child.name, "canopy_workload");
    ASSERT_TRUE(child.end_ms);
    EXPECT_EQ(child.exit_code, static_cast<int64_t>(i % 8));
    // It slept 5 ms: its exact start and end say at least that.
    EXPECT_GE(*child.end_ms - child.start_ms, 4);
    // The exit record's figures: a process that ran has a peak and some CPU.
    EXPECT_GT(child.hwm_bytes.value_or(0), 0);
    EXPECT_GT(child.cpu_user_ns.value_or(0) + child.cpu_system_ns.value_or(0), 0);
    // Read at its exec event while it lived. One gone before the recorder got to that
    // event is named by its exit record, its arguments unknown: never its parent's,
    // nor another process's.
    const std::vector<std::string> execd{kWorkload, "linger", "5", std::to_string(i % 8)};
    if (child.cmdline == execd) {
      ++with_own_cmdline;
    } else {
      EXPECT_TRUE(child.cmdline.empty()) << store::json_string_array(child.cmdline);
      EXPECT_TRUE(child.named_from_exit_record);
    }
  }
  // On a quiet machine, every one; the recorder can fall behind a loaded one.
  EXPECT_GT(with_own_cmdline, kChildren / 2);
  EXPECT_EQ(reader.meta().processes_with_exit_records, kChildren + 1);

  auto report = run({kCanopy, "report", path});
  EXPECT_NE(report.out.find("501, every one, from the kernel's process events"), std::string::npos) << report.out;
}

TEST(ProcessEvents, ExitRecordHoldsAPeakNoSampleSaw) {
  // A child touches 100 MiB for 30 ms, between two samples 500 ms apart.
  TempDir dir;
  std::string path = dir.file("brief.canopy");
  auto result = run({kCanopy, "record", "-i", "500", "-o", path, "--", "sh", "-c",
                     kWorkload + " hold 100 30 brief; sleep 0.6"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  const store::ProcessRow* holder = nullptr;
  for (const auto& p : *processes) {
    if (p.name == "canopy_workload") {
      holder = &p;
    }
  }
  ASSERT_TRUE(holder) << "the 30 ms child was not recorded";
  EXPECT_EQ(holder->exit_code, 0);
  EXPECT_GE(holder->hwm_bytes.value_or(0), mib(100));
  EXPECT_LT(holder->hwm_bytes.value_or(0), mib(110));
}

TEST(ProcessEvents, AForkedWorkerHasItsParentsIdentity) {
  // Four workers forked without an exec, alive for 1.5 s: the recorder copies their
  // parent's command line and executable at the fork, reading none of their files.
  TempDir dir;
  std::string path = dir.file("workers.canopy");
  auto result = run({kCanopy, "record", "-q", "-o", path, "--", kWorkload, "shared", "4", "10", "1500"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  ASSERT_EQ(reader.meta().process_events.value_or(""), "netlink");
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 5u);
  const store::ProcessRow& root = processes->front();
  EXPECT_EQ(root.cmdline, (std::vector<std::string>{kWorkload, "shared", "4", "10", "1500"}));
  for (size_t i = 1; i < processes->size(); ++i) {
    const auto& worker = (*processes)[i];
    SCOPED_TRACE("worker pid " + std::to_string(worker.pid));
    EXPECT_EQ(worker.parent_id, root.id);
    EXPECT_EQ(worker.name, "canopy_workload");
    EXPECT_EQ(worker.cmdline, root.cmdline);
    EXPECT_EQ(worker.exe, root.exe);
    EXPECT_EQ(worker.exit_code, 0);
    // Sampled from the first tick after its fork: each one maps the 10 MiB it shares.
    EXPECT_GE(worker.peak_rss_bytes.value_or(0), mib(10));
  }
  // No exec happened, so none is recorded.
  auto execs = reader.events_of_kind("exec");
  ASSERT_TRUE(execs);
  EXPECT_TRUE(execs->empty());
}

TEST(ProcessEvents, PollingSaysWhatItMayHaveMissed) {
  TempDir dir;
  std::string path = dir.file("polled.canopy");
  auto result = run({kCanopy, "record", "--no-process-events", "-o", path, "--", kWorkload, "churn",
                     std::to_string(kChildren), "5"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  EXPECT_EQ(reader.meta().process_events.value_or(""), "off: --no-process-events");
  EXPECT_EQ(reader.meta().exit_records.value_or(""), "off: --no-process-events");

  auto json = nlohmann::json::parse(run({kCanopy, "report", "--json", path}).out);
  int64_t seen = json["processes"];
  int64_t machine_forks = json["machine_forks"];
  // The tree's own 501 are among the machine's forks.
  EXPECT_GE(machine_forks, kChildren + 1);
  EXPECT_EQ(json["process_events"], "off: --no-process-events");

  auto report = run({kCanopy, "report", path});
  EXPECT_NE(report.out.find(std::to_string(seen) + ", found by polling every 100 ms"), std::string::npos)
      << report.out;
  std::regex missed("possibly missed +up to " + std::to_string(machine_forks - seen) +
                    " shorter-lived ones: the machine started " + std::to_string(machine_forks) +
                    " processes and threads meanwhile \\(process events off: --no-process-events\\)");
  EXPECT_TRUE(std::regex_search(report.out, missed)) << report.out;
}

TEST(ProcessEvents, AZombieTheRecorderInheritsIsStillOneProcess) {
  // The child exits at once; its parent execs sleep, which never reaps it. When sleep
  // ends, the zombie passes to canopy (the subreaper), which reaps it: that is the
  // same process its exit event already ended, not a new one.
  TempDir dir;
  std::string path = dir.file("zombie.canopy");
  auto result = run({kCanopy, "record", "-q", "-o", path, "--", "sh", "-c", "sh -c 'exit 3' & exec sleep 0.3"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto processes = open_recording(path).processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 2u);
  EXPECT_EQ((*processes)[1].parent_id, (*processes)[0].id);
  EXPECT_EQ((*processes)[1].exit_code, 3);
}

TEST(ProcessEvents, PollingTooKnowsTheZombieItInheritsAndGetsItsStatus) {
  // Without events: a tick sees the child running, then a zombie its parent (now
  // sleep) never reaps, and ends it. When sleep ends, the zombie passes to canopy,
  // which reaps it: the same process (same start), now with wait's exit status.
  TempDir dir;
  std::string path = dir.file("zombie-polled.canopy");
  auto result = run({kCanopy, "record", "-q", "--no-process-events", "-o", path, "--", "sh", "-c",
                     kWorkload + " linger 300 3 & exec sleep 1"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto processes = open_recording(path).processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 2u);
  const store::ProcessRow& child = (*processes)[1];
  EXPECT_EQ(child.parent_id, (*processes)[0].id);
  EXPECT_FALSE(child.adopted);
  EXPECT_EQ(child.exit_code, 3);
  ASSERT_TRUE(child.end_ms);
  // Ended as a tick saw it, within an interval or two of its 300 ms, not at the reaping.
  EXPECT_LT(*child.end_ms - child.start_ms, 700);
}

TEST(ProcessEvents, AnUnprivilegedUserGetsWhatItMayAndIsToldWhatNot) {
  // As nobody: no taskstats (CAP_NET_ADMIN) and no cgroup to write to. The process
  // events themselves are open to any user on this kernel.
  if (::getuid() != 0) {
    GTEST_SKIP() << "needs root to become nobody";
  }
  TempDir dir;
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
  std::string path = dir.file("nobody.canopy");
  RunOptions options;
  options.prefix = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  options.cwd = dir.path();
  auto result = run({kCanopy, "record", "-o", path, "--", kWorkload, "churn", "50", "5"}, options);
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  EXPECT_EQ(reader.meta().exit_records.value_or(""), "off: taskstats: not permitted (needs root or CAP_NET_ADMIN)");
  EXPECT_EQ(reader.meta().cgroup.value_or("").rfind("off: ", 0), 0u) << reader.meta().cgroup.value_or("");
  EXPECT_NE(reader.meta().cgroup.value_or("").find("Permission denied"), std::string::npos) << reader.meta().cgroup.value_or("");
  EXPECT_NE(result.err.find("tree peak          not measured: no cgroup (off: "), std::string::npos) << result.err;
  if (reader.meta().process_events.value_or("") == "netlink") {
    EXPECT_EQ(reader.processes()->size(), 51u);
    EXPECT_NE(result.err.find("51, every one, from the kernel's process events"), std::string::npos) << result.err;
  } else {
    EXPECT_NE(result.err.find("found by polling every 100 ms"), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace canopy::testing
