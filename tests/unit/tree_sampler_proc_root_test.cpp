// Every /proc file the sampler reads comes from its proc root, the machine-wide ones
// and its own children list included: against a fake tree (support/fake_proc.h), what
// the recording holds follows from those files alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include "support/fake_proc_recording.h"

namespace canopy::record {
namespace {

using canopy::testing::FakeMachine;
using canopy::testing::FakeProcess;
using canopy::testing::kFakePageBytes;
using canopy::testing::kPagesPerMiB;
using canopy::testing::rss_bytes;
using TreeSamplerProcRoot = canopy::testing::FakeProcTest;

using testing::kChildPid;
using testing::kRootPid;

TEST_F(TreeSamplerProcRoot, IdleProcessesAreReadAgainOnceVmstatSaysTheKernelMovedMemory) {
  // Enough processes that one vmstat read costs less than reading each one's statm.
  FakeProcess root{.pid = kRootPid, .name = "make"};
  std::vector<FakeProcess> children;
  for (pid_t pid = kChildPid; pid < kChildPid + 17; ++pid) {
    root.children.push_back(pid);
    children.push_back(
        {.pid = pid, .ppid = kRootPid, .name = "sleep", .start_ticks = 2000, .resident_pages = 10 * kPagesPerMiB});
  }
  proc_.write(root);
  for (const auto& child : children) {
    proc_.write(child);
  }
  FakeMachine machine;
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);  // vmstat's first reading: nothing to compare with, all read
  // The kernel swaps out 1 MiB of a child that does not run, and counts it in vmstat
  // only later (as if the two ticks fell between the swap-out and the count).
  FakeProcess& swapped = children[5];
  swapped.resident_pages -= 256;
  swapped.swap_kb += 1024;
  proc_.write(swapped);
  sampler.tick(200);  // vmstat stands still: the idle processes are not read
  machine.pgsteal_kswapd += 256;
  proc_.write_machine(machine);
  sampler.tick(300);
  auto recording = finish(300);

  const int64_t before = rss_bytes(root) + 17 * rss_bytes(children[0]);
  EXPECT_EQ(recording.tick_at(100).processes, 18);
  EXPECT_EQ(recording.tick_at(100).rss_bytes, before);
  EXPECT_EQ(recording.tick_at(200).rss_bytes, before);
  EXPECT_EQ(recording.tick_at(300).rss_bytes, before - 256 * kFakePageBytes);
  EXPECT_EQ(recording.tick_at(300).swap_bytes, 1024 * 1024);
}

TEST_F(TreeSamplerProcRoot, TheMachinesMemoryIsReadFromTheProcRoot) {
  proc_.write({.pid = kRootPid, .name = "make"});
  FakeMachine machine{.mem_total_kb = 4'000'000, .mem_available_kb = 1'500'000, .swap_free_kb = 1'000'000};
  proc_.write_machine(machine);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  auto recording = finish(100);
  const auto& tick = recording.tick_at(100);
  EXPECT_EQ(tick.mem_total_bytes, machine.mem_total_kb * 1024);
  EXPECT_EQ(tick.mem_available_bytes, machine.mem_available_kb * 1024);
  EXPECT_EQ(tick.swap_total_bytes, machine.swap_total_kb * 1024);
  EXPECT_EQ(tick.swap_free_bytes, machine.swap_free_kb * 1024);
}

TEST_F(TreeSamplerProcRoot, AnOrphanPassedToUsIsFoundInOurOwnChildrenList) {
  // Run mode: the recorder (this test, as the fake tree has it) is the subreaper.
  const pid_t self = ::getpid();
  FakeProcess recorder{.pid = self, .name = "canopy", .children = {kRootPid}};
  proc_.write(recorder);
  proc_.write({.pid = kRootPid, .ppid = self, .name = "make"});
  TreeSampler& sampler = start({.adopt_own_children = true});
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  // make's child, orphaned before the sampler saw it, is reparented to us.
  recorder.children.push_back(kChildPid);
  proc_.write(recorder);
  proc_.write({.pid = kChildPid, .ppid = self, .name = "daemon", .start_ticks = 2000});
  sampler.tick(100);
  auto recording = finish(100);
  ASSERT_EQ(recording.processes.size(), 2u);
  const auto& orphan = recording.row_of(kChildPid);
  EXPECT_TRUE(orphan.adopted);
  EXPECT_FALSE(orphan.parent_id);
  EXPECT_EQ(orphan.first_seen_ms, 100);
}

}  // namespace
}  // namespace canopy::record
