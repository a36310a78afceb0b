// How the sampler ends a process, against a /proc tree the test writes
// (support/fake_proc.h): a zombie, one passed to us as the subreaper, and a process
// gone between two reads of its files. No real process, no timing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/fake_proc_recording.h"

namespace canopy::record {
namespace {

using canopy::testing::become_zombie;
using canopy::testing::FakeProcess;
using canopy::testing::kPagesPerMiB;
using canopy::testing::rss_bytes;
using TreeSamplerFakeProcEndings = canopy::testing::FakeProcTest;

using testing::kChildPid;
using testing::kRootPid;

// ---- Zombies ----

TEST_F(TreeSamplerFakeProcEndings, AZombieEndsWithItsFinalCpuAndLeavesTheTicksTotals) {
  FakeProcess make{.pid = kRootPid, .name = "make", .children = {kChildPid}};
  FakeProcess cc1{.pid = kChildPid, .ppid = kRootPid, .name = "cc1", .start_ticks = 2000, .user_ticks = 5,
                  .system_ticks = 1, .run_ns = 60'000'000, .resident_pages = 10 * kPagesPerMiB};
  proc_.write(make);
  proc_.write(cc1);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  // It exits; make has not reaped it yet.
  become_zombie(cc1);
  cc1.user_ticks = 30;
  cc1.system_ticks = 10;
  cc1.run_ns = 400'000'000;
  proc_.write(cc1);
  sampler.tick(200);
  sampler.tick(300);  // still a zombie: ended already, not read again
  auto recording = finish(300);

  ASSERT_EQ(recording.processes.size(), 2u);
  const auto& row = recording.row_of(kChildPid);
  EXPECT_EQ(row.end_ms, 200);
  EXPECT_EQ(row.cpu_user_ns, 300'000'000);  // 400 ms, split 30:10 as its ticks are
  EXPECT_EQ(row.cpu_system_ns, 100'000'000);
  EXPECT_EQ(row.peak_rss_bytes, rss_bytes(cc1));
  // Its last sample has its final CPU, and the memory it had, not a zombie's zeros.
  ASSERT_FALSE(recording.samples_of(row.id).empty());
  const auto& last = recording.samples_of(row.id).back();
  EXPECT_EQ(last.t_ms, 200);
  EXPECT_EQ(last.values.cpu_ns(), 400'000'000);
  EXPECT_EQ(last.values.rss_bytes(), rss_bytes(cc1));
  for (int64_t t : {200, 300}) {
    EXPECT_EQ(recording.tick_at(t).processes, 1) << t;
    EXPECT_EQ(recording.tick_at(t).rss_bytes, rss_bytes(make)) << t;
    EXPECT_GE(recording.tick_at(t).cpu_ns, 400'000'000) << t;  // ended CPU stays counted
  }
}

TEST_F(TreeSamplerFakeProcEndings, AZombieFoundInAChildrenListIsNotRecorded) {
  // Ended before the sampler first saw it: nothing of it is left to sample.
  proc_.write({.pid = kRootPid, .name = "make", .children = {kChildPid}});
  proc_.write({.pid = kChildPid, .ppid = kRootPid, .name = "true", .state = 'Z', .start_ticks = 2000});
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  auto recording = finish(100);
  ASSERT_EQ(recording.processes.size(), 1u);
  EXPECT_EQ(recording.processes[0].pid, kRootPid);
}

TEST_F(TreeSamplerFakeProcEndings, AZombieChildOfOursWaitsToBeReapedForItsExitStatus) {
  FakeProcess command{.pid = kRootPid, .ppid = ::getpid(), .name = "make"};
  proc_.write(command);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  become_zombie(command);
  proc_.write(command);
  sampler.tick(200);
  EXPECT_TRUE(sampler.alive_pids().empty());  // out of the tree, but kept
  ASSERT_TRUE(sampler.alive(kRootPid));
  sampler.on_child_reaped(kRootPid, W_EXITCODE(3, 0), 250);
  proc_.vanish(kRootPid);
  auto recording = finish(300);
  ASSERT_EQ(recording.processes.size(), 1u);
  EXPECT_EQ(recording.processes[0].end_ms, 250);
  EXPECT_EQ(recording.processes[0].exit_code, 3);
  EXPECT_EQ(recording.tick_at(200).processes, 0);
}

// make's child cc1 is a zombie at the tick of 100 ms, which ends it: make may never
// reap it, and if make dies first, the zombie passes to us, the subreaper.
class UnreapedZombie : public canopy::testing::FakeProcTest {
 protected:
  TreeSampler& end_cc1_unreaped() {
    proc_.write(make);
    proc_.write(cc1);
    TreeSampler& sampler = start();
    EXPECT_TRUE(sampler.add_root(kRootPid, 0));
    become_zombie(cc1);
    proc_.write(cc1);
    sampler.tick(100);
    return sampler;
  }

  FakeProcess make{.pid = kRootPid, .name = "make", .children = {kChildPid}};
  FakeProcess cc1{.pid = kChildPid, .ppid = kRootPid, .name = "cc1", .start_ticks = 2000};
};

TEST_F(UnreapedZombie, PassedToUsItIsTheProcessWeEndedNotANewOne) {
  TreeSampler& sampler = end_cc1_unreaped();
  // make dies without reaping it: the zombie passes to us, the subreaper.
  proc_.vanish(kRootPid);
  cc1.ppid = ::getpid();
  proc_.write(cc1);
  sampler.tick(200);
  sampler.on_child_exiting(kChildPid, 250);
  sampler.on_child_reaped(kChildPid, W_EXITCODE(7, 0), 250);
  proc_.vanish(kChildPid);
  auto recording = finish(300);

  ASSERT_EQ(recording.processes.size(), 2u);
  const auto& row = recording.row_of(kChildPid);
  EXPECT_EQ(row.end_ms, 100);
  EXPECT_EQ(row.exit_code, 7);  // wait's status, on the row that ended
}

TEST_F(UnreapedZombie, ItsPidReusedAndPassedToUsIsANewProcess) {
  TreeSampler& sampler = end_cc1_unreaped();
  // make reaps it after all, and the PID goes to an orphan that ends as our child.
  proc_.vanish(kChildPid);
  proc_.write({.pid = kChildPid, .ppid = ::getpid(), .name = "late", .state = 'Z', .start_ticks = 2600});
  sampler.on_child_exiting(kChildPid, 150);
  sampler.on_child_reaped(kChildPid, W_EXITCODE(0, 0), 150);
  proc_.vanish(kChildPid);
  auto recording = finish(200);

  auto rows = recording.rows_of(kChildPid);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "cc1");
  EXPECT_FALSE(rows[0].exit_code);  // make reaped it: its status is make's to know
  EXPECT_EQ(rows[1].name, "late");
  EXPECT_EQ(rows[1].start_ticks, 2600);
  EXPECT_TRUE(rows[1].adopted);
  EXPECT_EQ(rows[1].exit_code, 0);
  EXPECT_EQ(rows[1].end_ms, 150);
}

// ---- A process gone between two reads ----

TEST_F(TreeSamplerFakeProcEndings, AChildGoneBeforeItsStatIsReadIsNotRecorded) {
  proc_.write({.pid = kRootPid, .name = "make", .children = {kChildPid}});
  proc_.write({.pid = kChildPid, .ppid = kRootPid, .name = "cc1", .start_ticks = 2000});
  proc_.fail_reads(kChildPid, "stat");
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  auto recording = finish(100);
  EXPECT_EQ(recording.processes.size(), 1u);
}

TEST_F(TreeSamplerFakeProcEndings, AChildGoneAfterItsStatIsEndedWithoutASample) {
  FakeProcess make{.pid = kRootPid, .name = "make", .children = {kChildPid}};
  proc_.write(make);
  proc_.write({.pid = kChildPid, .ppid = kRootPid, .name = "cc1", .start_ticks = 2000});
  proc_.fail_reads(kChildPid, "statm");  // reaped between its stat and its statm
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 10));
  sampler.tick(100);
  auto recording = finish(100);

  ASSERT_EQ(recording.processes.size(), 2u);
  const auto& row = recording.row_of(kChildPid);
  EXPECT_EQ(row.name, "cc1");
  EXPECT_EQ(row.end_ms, 10);
  EXPECT_FALSE(row.peak_rss_bytes);
  EXPECT_TRUE(recording.samples_of(row.id).empty());
  EXPECT_EQ(recording.tick_at(100).processes, 1);
  EXPECT_EQ(recording.tick_at(100).rss_bytes, rss_bytes(make));
}

TEST_F(TreeSamplerFakeProcEndings, AProcessGoneBetweenItsStatmAndItsStatWritesNoSample) {
  FakeProcess make{.pid = kRootPid, .name = "make", .children = {kChildPid}};
  FakeProcess cc1{.pid = kChildPid, .ppid = kRootPid, .name = "cc1", .start_ticks = 2000,
                  .resident_pages = 10 * kPagesPerMiB};
  proc_.write(make);
  proc_.write(cc1);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  // It ran and grew, and was reaped after the sampler read its statm.
  FakeProcess grown = cc1;
  grown.run_ns += 5'000'000;
  grown.resident_pages = 50 * kPagesPerMiB;
  proc_.write(grown);
  proc_.fail_reads(kChildPid, "stat");
  sampler.tick(100);
  auto recording = finish(100);

  const auto& row = recording.row_of(kChildPid);
  EXPECT_EQ(row.end_ms, 100);
  EXPECT_EQ(row.peak_rss_bytes, rss_bytes(cc1));  // not the half-read sample's
  ASSERT_EQ(recording.samples_of(row.id).size(), 1u);
  EXPECT_EQ(recording.samples_of(row.id)[0].t_ms, 0);
  EXPECT_EQ(recording.tick_at(100).rss_bytes, rss_bytes(make));
}

}  // namespace
}  // namespace canopy::record
