// Processes started elsewhere on the machine while canopy records: the kernel drops
// their process events and exit records before they reach the recorder (counted in
// the meta), and the tree's own, brief ones included, all arrive.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

// Outside the tree: a churn of this many children (and itself), each a fork, an exec
// and an exit.
constexpr int kUnrelated = 150;
// The tree: sh, a churn of 20 children, and the sh again as a process that waits.
constexpr int kTreeChildren = 20;
constexpr int kTreeProcesses = kTreeChildren + 2;

// The exit statuses of the children of `churn_id` that ran canopy_workload (a churn's,
// forked one after another), in the order they were forked.
std::vector<int64_t> churn_exit_codes(const std::vector<store::ProcessRow>& processes, int64_t churn_id) {
  std::vector<int64_t> codes;
  for (const auto& p : processes) {
    if (p.parent_id == churn_id && p.name == "canopy_workload") {
      codes.push_back(p.exit_code.value_or(-1));
      EXPECT_GT(p.hwm_bytes.value_or(0), 0) << "no exit record for pid " << p.pid;
    }
  }
  return codes;
}

// canopy_workload churn's i-th child exits with i % 8.
std::vector<int64_t> expected_exit_codes(int children) {
  std::vector<int64_t> codes;
  for (int i = 0; i < children; ++i) {
    codes.push_back(i % 8);
  }
  return codes;
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
  ASSERT_EQ(reader.meta().process_events.value_or(""), "netlink");
  ASSERT_EQ(reader.meta().exit_records.value_or(""), "taskstats");
  ASSERT_EQ(reader.meta().process_events_filter.value_or(""), "tree");
  EXPECT_EQ(reader.meta().process_events_lost, 0);

  // Every process of the tree, each with its exit record.
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), static_cast<size_t>(kTreeProcesses));
  EXPECT_EQ(churn_exit_codes(*processes, processes->at(1).id), expected_exit_codes(kTreeChildren));
  EXPECT_EQ(reader.meta().processes_with_exit_records, kTreeProcesses);

  // The unrelated churn's fork, exec and exit each, and its exit records, were dropped
  // in the kernel (the machine's other processes add to both counts).
  EXPECT_GE(reader.meta().process_events_filtered.value_or(0), 3 * (kUnrelated + 1));
  EXPECT_GE(reader.meta().exit_records_filtered.value_or(0), kUnrelated + 1);
  // What reached the recorder: the tree's fork, exec and exit of each process (the
  // root's exit may come after the recording's end), and what the machine queued
  // before the filter was in place. Without the filter, the unrelated forks alone
  // would be more.
  auto received = reader.meta().process_events_received;
  ASSERT_TRUE(received);
  EXPECT_GE(*received, 3 * kTreeProcesses - 1);
  EXPECT_LT(*received, kUnrelated + 1);
}

TEST(UnrelatedProcesses, AnAttachedTreesLaterForksPassTheFilter) {
  // A tree running before canopy: sh, and under it another sh that waits for a file,
  // then becomes a churn of brief children. canopy admits both shells to the filter
  // when it attaches; the churn's children are forked later, each admitted by the
  // kernel at its fork.
  constexpr int kChildren = 10;
  TempDir dir;
  const std::string gate = dir.file("go");
  Started tree({"sh", "-c",
                "sh -c 'while [ ! -e " + gate + " ]; do sleep 0.05; done; exec " + kWorkload + " churn " +
                    std::to_string(kChildren) + " 0'; true"});
  std::string path = dir.file("attached.canopy");
  Started recorder({kCanopy, "record", "-q", "--pid", std::to_string(tree.pid()), "-o", path});
  // Recording once its first tick is in the file.
  bool ticking = wait_for_recording(path, [](const store::Reader& live) {
    auto ticks = live.ticks();
    return ticks && !ticks->empty();
  });
  if (!ticking) {
    recorder.signal(SIGTERM);
    auto stopped = recorder.wait();
    FAIL() << "canopy never recorded a tick; it exited " << stopped.exit_status << ": " << stopped.err;
  }
  { std::ofstream(gate).put('\n'); }
  ASSERT_EQ(tree.wait().exit_status, 0);
  auto finished = recorder.wait();
  ASSERT_EQ(finished.exit_status, 0) << finished.err;

  auto reader = open_recording(path);
  ASSERT_EQ(reader.meta().process_events_filter.value_or(""), "tree");
  auto processes = reader.processes();
  ASSERT_TRUE(processes) << processes.error().message;
  // The inner sh, become the churn: the root's first child.
  ASSERT_GE(processes->size(), 2u);
  EXPECT_EQ(processes->at(1).parent_id, processes->front().id);
  // Its children, each heard at its fork and exit.
  EXPECT_EQ(churn_exit_codes(*processes, processes->at(1).id), expected_exit_codes(kChildren));
}

}  // namespace
}  // namespace canopy::testing
