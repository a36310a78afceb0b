// Processes started elsewhere on the machine while canopy records: the kernel drops
// their process events and exit records before they reach the recorder (counted in
// the meta), and the tree's own, brief ones included, all arrive.
#include <gtest/gtest.h>

#include <signal.h>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

// Outside the tree: a churn of this many children (and itself), each a fork, an exec
// and an exit.
constexpr int kUnrelated = 150;
// The tree: sh, a churn of 20 children, and the sh again as a process that waits.
constexpr int kTreeChildren = 20;
constexpr int kTreeProcesses = kTreeChildren + 2;

std::string meta(const store::Reader& reader, const std::string& key) {
  auto it = reader.meta().find(key);
  return it == reader.meta().end() ? "" : it->second;
}

TEST(UnrelatedProcesses, TheKernelDropsTheirEventsAndKeepsTheTrees) {
  TempDir dir;
  std::string path = dir.file("unrelated.canopy");
  Started recorder({kCanopy, "record", "-q", "-o", path, "--", "sh", "-c",
                    kWorkload + " churn " + std::to_string(kTreeChildren) + " 0 && echo ready && exec " + kWorkload +
                        " linger 600000 0"});
  ASSERT_TRUE(recorder.wait_for_output("ready")) << recorder.output();
  // The test's own child, so neither in the recorded tree nor in its cgroup.
  auto unrelated = run({kWorkload, "churn", std::to_string(kUnrelated), "0"});
  ASSERT_EQ(unrelated.exit_status, 0) << unrelated.err;
  recorder.signal(SIGTERM);  // passed on to the command, which it ends
  auto finished = recorder.wait();
  ASSERT_EQ(finished.exit_status, 128 + SIGTERM) << finished.err;

  auto reader = open_recording(path);
  // This machine (CI's) runs the tests as root, which may load the filter.
  ASSERT_EQ(meta(reader, "process_events"), "netlink");
  ASSERT_EQ(meta(reader, "exit_records"), "taskstats");
  ASSERT_EQ(meta(reader, "process_events_filter"), "tree");
  EXPECT_EQ(meta(reader, "process_events_lost"), "0");

  // Every process of the tree, each with its exit record.
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), static_cast<size_t>(kTreeProcesses));
  int churned = 0;
  for (const auto& p : *processes) {
    if (p.cmdline.size() >= 3 && p.cmdline[1] == "linger" && p.cmdline[2] == "0") {
      ++churned;
      EXPECT_TRUE(p.exit_code.has_value()) << "pid " << p.pid;
    }
  }
  EXPECT_EQ(churned, kTreeChildren);
  EXPECT_EQ(reader.meta_int("processes_with_exit_records"), kTreeProcesses);

  // The unrelated churn's fork, exec and exit each, and its exit records, were dropped
  // in the kernel (the machine's other processes add to both counts).
  EXPECT_GE(reader.meta_int("process_events_filtered").value_or(0), 3 * (kUnrelated + 1));
  EXPECT_GE(reader.meta_int("exit_records_filtered").value_or(0), kUnrelated + 1);
  // What reached the recorder: the tree's fork, exec and exit of each process (the
  // root's exit may come after the recording's end), and what the machine queued
  // before the filter was in place. Without the filter, the unrelated forks alone
  // would be more.
  auto received = reader.meta_int("process_events_received");
  ASSERT_TRUE(received);
  EXPECT_GE(*received, 3 * kTreeProcesses - 1);
  EXPECT_LT(*received, kUnrelated + 1);
}

}  // namespace
}  // namespace canopy::testing
