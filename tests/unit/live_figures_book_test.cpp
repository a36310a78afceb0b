// The live figures the recorder publishes (record/live_figures_book.h), from a sampler
// reading a fake /proc (support/fake_proc.h): a command's CPU stays with it when its
// processes end or exec another program, and the tree's figures are its processes'.
// With --heap, each process carries its profiler's latest heap figure while its
// connection is open (record/heap_in_use.h).
#include "record/live_figures_book.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <vector>

#include "support/fake_proc_recording.h"

namespace canopy::record {
namespace {

using canopy::testing::become_zombie;
using canopy::testing::FakeProcess;
using canopy::testing::kChildPid;
using canopy::testing::kPagesPerMiB;
using canopy::testing::kRootPid;
using canopy::testing::kSecondPid;
using canopy::testing::rss_bytes;
using LiveFiguresBookTest = canopy::testing::FakeProcTest;
using live::LiveCommandFigures;
using live::LiveFigures;
using live::LiveFiguresSink;
using live::LiveProcessFigures;

class KeptFigures final : public LiveFiguresSink {
 public:
  void publish(std::shared_ptr<const LiveFigures> figures) override { published.push_back(std::move(figures)); }
  std::vector<std::shared_ptr<const LiveFigures>> published;
};

const LiveCommandFigures* live_command(const LiveFigures& figures, const std::string& name) {
  for (const auto& c : figures.commands) {
    if (c.command == name) {
      return &c;
    }
  }
  return nullptr;
}

TEST_F(LiveFiguresBookTest, ACommandKeepsItsCpuWhenItsProcessesExecAndEnd) {
  FakeProcess make{.pid = kRootPid, .name = "make", .resident_pages = 2 * kPagesPerMiB,
                   .children = {kChildPid, kSecondPid}, .other_threads = {{kRootPid + 10}}};
  FakeProcess cc1{.pid = kChildPid, .ppid = kRootPid, .name = "cc1", .start_ticks = 2000, .user_ticks = 5,
                  .system_ticks = 1, .run_ns = 60'000'000, .resident_pages = 40 * kPagesPerMiB};
  FakeProcess cc1_second{.pid = kSecondPid, .ppid = kRootPid, .name = "cc1", .start_ticks = 2001, .user_ticks = 2,
                         .run_ns = 20'000'000, .resident_pages = 30 * kPagesPerMiB};
  proc_.write(make);
  proc_.write(cc1);
  proc_.write(cc1_second);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  KeptFigures sink;
  LiveFiguresBook book({&sink});

  sampler.tick(100);
  book.publish(100, sampler, nullptr);
  // Round 1: the two cc1 are one group; the tree is the three processes.
  const LiveFigures& first = *sink.published.back();
  EXPECT_EQ(first.t_ms, 100);
  EXPECT_EQ(first.processes, 3);
  EXPECT_EQ(first.threads, 4);  // make has two
  EXPECT_EQ(first.rss_bytes, rss_bytes(make) + rss_bytes(cc1) + rss_bytes(cc1_second));
  const LiveCommandFigures* group = live_command(first, "cc1");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->processes, 2);
  EXPECT_EQ(group->threads, 2);
  EXPECT_EQ(group->rss_bytes, rss_bytes(cc1) + rss_bytes(cc1_second));
  const int64_t cc1_cpu_ns = group->cpu_user_ns + group->cpu_system_ns;
  EXPECT_EQ(cc1_cpu_ns, 80'000'000);  // both run times, the best total the sampler has

  // Round 2: the first cc1 execs `as` (after 40 ms more as cc1) and the second ends.
  cc1.run_ns += 40'000'000;
  cc1.user_ticks += 4;
  canopy::testing::exec(cc1, "as", "/usr/bin/as", {"as", "x.s"});
  become_zombie(cc1_second);
  cc1_second.run_ns += 10'000'000;
  cc1_second.user_ticks += 1;
  proc_.write(cc1);
  proc_.write(cc1_second);
  sampler.tick(200);
  book.publish(200, sampler, nullptr);
  const LiveFigures& second = *sink.published.back();
  EXPECT_EQ(second.processes, 2);
  const LiveCommandFigures* cc1_after = live_command(second, "cc1");
  const LiveCommandFigures* as = live_command(second, "as");
  ASSERT_NE(cc1_after, nullptr);
  ASSERT_NE(as, nullptr);
  EXPECT_EQ(cc1_after->processes, 0);
  EXPECT_EQ(cc1_after->rss_bytes, 0);
  // What cc1 used as seen at its last tick stays with it: never less than before. The
  // exec'd process's CPU up to the exec (as far as a tick saw it) is cc1's, not as's.
  EXPECT_GE(cc1_after->cpu_user_ns + cc1_after->cpu_system_ns, cc1_cpu_ns);
  EXPECT_EQ(as->processes, 1);
  EXPECT_EQ(as->rss_bytes, rss_bytes(cc1));
  const int64_t as_cpu_ns = as->cpu_user_ns + as->cpu_system_ns;
  EXPECT_EQ(as_cpu_ns + 60'000'000, 101'000'000);  // all it used since the last tick: 40 ms and the exec's 1 ms
  EXPECT_GE(second.cpu_ns, 60'000'000 + 41'000'000 + 30'000'000 - 1);  // the tree's counts the ended one's end too

  // Round 3: as ends too. Every command's counters stand where they stood, or higher.
  become_zombie(cc1);
  proc_.write(cc1);
  sampler.tick(300);
  book.publish(300, sampler, nullptr);
  const LiveFigures& third = *sink.published.back();
  EXPECT_EQ(third.processes, 1);
  for (const auto& before : second.commands) {
    const LiveCommandFigures* after = live_command(third, before.command);
    ASSERT_NE(after, nullptr) << before.command;
    EXPECT_GE(after->cpu_user_ns, before.cpu_user_ns) << before.command;
    EXPECT_GE(after->cpu_system_ns, before.cpu_system_ns) << before.command;
  }
  EXPECT_GE(third.cpu_ns, second.cpu_ns);
  finish(300);
}

TEST_F(LiveFiguresBookTest, EachProcessWithItsCpuShareAndTheTreePeakSoFar) {
  FakeProcess make{.pid = kRootPid, .name = "make", .resident_pages = 2 * kPagesPerMiB, .children = {kChildPid}};
  FakeProcess cc1{.pid = kChildPid, .ppid = kRootPid, .name = "cc1", .start_ticks = 2000, .user_ticks = 5,
                  .run_ns = 50'000'000, .resident_pages = 40 * kPagesPerMiB};
  proc_.write(make);
  proc_.write(cc1);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  KeptFigures sink;
  KeptFigures second_sink;
  LiveFiguresBook book({&sink, &second_sink});
  sampler.tick(100);
  book.publish(100, sampler, nullptr);
  const LiveFigures& first = *sink.published.back();
  EXPECT_EQ(second_sink.published.back(), sink.published.back()) << "every sink is told the same figures";
  ASSERT_EQ(first.each_process.size(), 2u);
  for (const LiveProcessFigures& p : first.each_process) {
    EXPECT_EQ(p.cpu_percent, 0) << p.command << ": no previous tick to take a rate from";
  }
  EXPECT_EQ(first.peak_rss_bytes, rss_bytes(make) + rss_bytes(cc1));
  EXPECT_EQ(first.peak_t_ms, 100);

  // 100 ms later cc1 has used 75 ms more and freed half its memory: 75% of a core, and
  // the peak stays at the first tick.
  cc1.run_ns += 75'000'000;
  cc1.user_ticks += 7;
  cc1.resident_pages = 20 * kPagesPerMiB;
  proc_.write(cc1);
  sampler.tick(200);
  book.publish(200, sampler, nullptr);
  const LiveFigures& second = *sink.published.back();
  const LiveProcessFigures* compiler = nullptr;
  for (const LiveProcessFigures& p : second.each_process) {
    if (p.command == "cc1") {
      compiler = &p;
    }
  }
  ASSERT_NE(compiler, nullptr);
  EXPECT_EQ(compiler->pid, kChildPid);
  EXPECT_EQ(compiler->rss_bytes, rss_bytes(cc1));
  EXPECT_NEAR(compiler->cpu_percent, 75.0, 0.01);
  EXPECT_EQ(second.peak_rss_bytes, first.peak_rss_bytes);
  EXPECT_EQ(second.peak_t_ms, 100);
  EXPECT_EQ(second.cgroup_memory_bytes, std::nullopt);  // no cgroup without a limit watch
  EXPECT_EQ(second.cgroup_peak_bytes, std::nullopt);
  finish(200);
}

const LiveProcessFigures* live_process(const LiveFigures& figures, int64_t pid) {
  for (const LiveProcessFigures& p : figures.each_process) {
    if (p.pid == pid) {
      return &p;
    }
  }
  return nullptr;
}

TEST_F(LiveFiguresBookTest, WithHeapEachProcessCarriesItsOpenConnectionsLatestFigure) {
  FakeProcess make{.pid = kRootPid, .name = "make", .resident_pages = 2 * kPagesPerMiB,
                   .children = {kChildPid, kSecondPid}};
  FakeProcess cc1{.pid = kChildPid, .ppid = kRootPid, .name = "cc1", .start_ticks = 2000,
                  .resident_pages = 40 * kPagesPerMiB};
  FakeProcess ld{.pid = kSecondPid, .ppid = kRootPid, .name = "ld", .start_ticks = 2001,
                 .resident_pages = 30 * kPagesPerMiB};
  proc_.write(make);
  proc_.write(cc1);
  proc_.write(ld);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  KeptFigures sink;
  LiveFiguresBook book({&sink});
  sampler.tick(100);
  const int64_t cc1_id = *sampler.process_id(kChildPid);
  const int64_t ld_id = *sampler.process_id(kSecondPid);

  // Without --heap: no heap figures at all.
  book.publish(100, sampler, nullptr);
  EXPECT_FALSE(sink.published.back()->heap_profiling);
  for (const LiveProcessFigures& p : sink.published.back()->each_process) {
    EXPECT_EQ(p.heap_in_use_bytes, std::nullopt) << p.command;
  }

  // cc1 has reported twice on connection 1 (the latest counts), ld once on 2; make's
  // profiler has sent nothing: its heap is unknown, not 0.
  HeapInUseTable heap;
  heap.reported(cc1_id, 1, 5 << 20);
  heap.reported(cc1_id, 1, 7 << 20);
  heap.reported(ld_id, 2, 3 << 20);
  sampler.tick(200);
  book.publish(200, sampler, nullptr, &heap);
  const LiveFigures& second = *sink.published.back();
  EXPECT_TRUE(second.heap_profiling);
  EXPECT_EQ(live_process(second, kChildPid)->heap_in_use_bytes, 7 << 20);
  EXPECT_EQ(live_process(second, kSecondPid)->heap_in_use_bytes, 3 << 20);
  EXPECT_EQ(live_process(second, kRootPid)->heap_in_use_bytes, std::nullopt);

  // cc1 execs `as`, whose profiler connects (3) and reports before the old program's
  // connection is read to its end: the newer connection's figure stands, and the old
  // one's end takes nothing away. A late snapshot of the old one does not either.
  heap.reported(cc1_id, 3, 1 << 20);
  heap.reported(cc1_id, 1, 9 << 20);
  heap.ended(cc1_id, 1);
  // ld's connection ends (its program exited or exec'd): its figure goes with it.
  heap.ended(ld_id, 2);
  sampler.tick(300);
  book.publish(300, sampler, nullptr, &heap);
  const LiveFigures& third = *sink.published.back();
  EXPECT_EQ(live_process(third, kChildPid)->heap_in_use_bytes, 1 << 20);
  EXPECT_EQ(live_process(third, kSecondPid)->heap_in_use_bytes, std::nullopt);

  // cc1 ends: it leaves the figures, its heap figure with it, even while the table still
  // holds its connection's last one.
  become_zombie(cc1);
  proc_.write(cc1);
  sampler.tick(400);
  book.publish(400, sampler, nullptr, &heap);
  EXPECT_EQ(live_process(*sink.published.back(), kChildPid), nullptr);
  EXPECT_EQ(heap.size(), 1u);
  heap.ended(cc1_id, 3);
  EXPECT_EQ(heap.size(), 0u);
  finish(400);
}

}  // namespace
}  // namespace canopy::record
