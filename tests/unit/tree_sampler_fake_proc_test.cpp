// The sampler against a /proc tree the test writes (support/fake_proc.h): a PID reused,
// an exec told from an exit, a zombie, a process gone between two reads, a thread group,
// a name with a newline. Real processes show these only by timing; here each is a state
// written between two ticks, and the recording must hold what the files said.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "support/fake_proc_recording.h"

namespace canopy::record {
namespace {

using canopy::testing::become_zombie;
using canopy::testing::exec;
using canopy::testing::FakeProcess;
using canopy::testing::kPagesPerMiB;
using canopy::testing::rss_bytes;
using TreeSamplerFakeProc = canopy::testing::FakeProcTest;

using testing::kChildPid;
using testing::kRootPid;
constexpr pid_t kSecond = canopy::testing::kSecondPid;

// ---- PID reuse ----

TEST_F(TreeSamplerFakeProc, AReusedPidIsANewProcessNotTheOldOneContinued) {
  FakeProcess make{.pid = kRootPid, .name = "make", .children = {kChildPid}};
  FakeProcess cc1{.pid = kChildPid, .ppid = kRootPid, .name = "cc1", .start_ticks = 2000, .resident_pages = 100 * kPagesPerMiB,
                  .exe = "/usr/libexec/gcc/cc1", .cmdline = {"cc1", "a.c"}};
  // Reaped by make, which forked another child that got the same PID.
  FakeProcess as{.pid = kChildPid, .ppid = kRootPid, .name = "as", .start_ticks = 2600, .resident_pages = 10 * kPagesPerMiB,
                 .exe = "/usr/bin/as", .cmdline = {"as", "-o", "a.o"}};
  proc_.write(make);
  proc_.write(cc1);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  proc_.reuse_pid(as);
  make.run_ns += 1'000'000;  // it ran: forked
  proc_.write(make);
  sampler.tick(200);
  sampler.tick(300);
  auto recording = finish(300);

  auto rows = recording.rows_of(kChildPid);
  ASSERT_EQ(rows.size(), 2u);
  const auto& old_row = rows[0];
  const auto& new_row = rows[1];
  EXPECT_NE(old_row.id, new_row.id);
  EXPECT_EQ(old_row.start_ticks, 2000);
  EXPECT_EQ(old_row.name, "cc1");
  EXPECT_EQ(old_row.end_ms, 200);
  EXPECT_EQ(old_row.peak_rss_bytes, rss_bytes(cc1));
  EXPECT_EQ(new_row.start_ticks, 2600);
  EXPECT_EQ(new_row.start_ms, 26'000);  // boot at 0, 100 ticks a second
  EXPECT_EQ(new_row.name, "as");
  EXPECT_EQ(new_row.exe, "/usr/bin/as");
  EXPECT_EQ(new_row.cmdline, as.cmdline);
  EXPECT_EQ(new_row.parent_id, recording.row_of(kRootPid).id);
  EXPECT_EQ(new_row.first_seen_ms, 200);
  EXPECT_FALSE(new_row.end_ms);
  EXPECT_EQ(new_row.peak_rss_bytes, rss_bytes(as));
  // Each row's samples are its own process's: none of the old one's memory is carried
  // into the new one, and the old one has none from its end on.
  for (const auto& sample : recording.samples_of(old_row.id)) {
    EXPECT_LT(sample.t_ms, 200);
    EXPECT_EQ(sample.values.rss_bytes(), rss_bytes(cc1));
  }
  ASSERT_FALSE(recording.samples_of(new_row.id).empty());
  for (const auto& sample : recording.samples_of(new_row.id)) {
    EXPECT_EQ(sample.values.rss_bytes(), rss_bytes(as));
  }
  EXPECT_EQ(recording.tick_at(200).processes, 2);
  EXPECT_EQ(recording.tick_at(200).rss_bytes, rss_bytes(make) + rss_bytes(as));
  EXPECT_TRUE(recording.execs.empty());  // another process, not an exec of the old one
}

TEST_F(TreeSamplerFakeProc, AReusedPidThatIsNotTheParentsChildIsLeftOut) {
  // make's list was read just before its child ended, and an unrelated process got the
  // PID before the sampler opened it.
  proc_.write({.pid = kRootPid, .name = "make", .children = {kChildPid}});
  proc_.write({.pid = kChildPid, .ppid = 1, .name = "cron", .start_ticks = 2600});
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  auto recording = finish(100);
  ASSERT_EQ(recording.processes.size(), 1u);
  EXPECT_EQ(recording.processes[0].name, "make");
}

// ---- An exec told from an exit ----

TEST_F(TreeSamplerFakeProc, AnExecContinuesTheRowAnExitEndsIt) {
  FakeProcess make{.pid = kRootPid, .name = "make", .children = {kChildPid, kSecond}};
  FakeProcess sh{.pid = kChildPid, .ppid = kRootPid, .name = "sh", .start_ticks = 2000, .exe = "/usr/bin/dash",
                 .cmdline = {"/bin/sh", "-c", "cc -c a.c"}};
  FakeProcess rm{.pid = kSecond, .ppid = kRootPid, .name = "rm", .start_ticks = 2001, .exe = "/usr/bin/rm",
                 .cmdline = {"rm", "-f", "a.o"}};
  proc_.write(make);
  proc_.write(sh);
  proc_.write(rm);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  // sh execs cc: the same PID and start, a new name, image, executable and arguments.
  exec(sh, "cc", "/usr/bin/x86_64-linux-gnu-gcc-12", {"cc", "-c", "a.c"});
  proc_.write(sh);
  // rm exits and make reaps it.
  proc_.vanish(kSecond);
  make.children = {kChildPid};
  make.run_ns += 1'000'000;
  proc_.write(make);
  sampler.tick(200);
  auto recording = finish(300);

  ASSERT_EQ(recording.processes.size(), 3u);
  auto cc = recording.rows_of(kChildPid);
  ASSERT_EQ(cc.size(), 1u);
  EXPECT_EQ(cc[0].start_ticks, 2000);
  EXPECT_EQ(cc[0].name, "cc");
  EXPECT_EQ(cc[0].exe, "/usr/bin/x86_64-linux-gnu-gcc-12");
  EXPECT_EQ(cc[0].cmdline, sh.cmdline);
  EXPECT_FALSE(cc[0].end_ms);
  ASSERT_EQ(recording.execs.size(), 1u);
  EXPECT_EQ(recording.execs[0].process_id, cc[0].id);
  EXPECT_EQ(recording.execs[0].t_ms, 200);
  EXPECT_EQ(recording.execs[0].text, "cc -c a.c");

  auto rm_rows = recording.rows_of(kSecond);
  ASSERT_EQ(rm_rows.size(), 1u);
  EXPECT_EQ(rm_rows[0].end_ms, 200);
  EXPECT_EQ(rm_rows[0].name, "rm");
  EXPECT_EQ(rm_rows[0].cmdline, rm.cmdline);
  EXPECT_EQ(recording.tick_at(200).processes, 2);
}

TEST_F(TreeSamplerFakeProc, AnExecThatKeepsTheNameIsToldByItsNewImage) {
  FakeProcess sh{.pid = kRootPid, .name = "sh", .exe = "/usr/bin/dash", .cmdline = {"sh", "build.sh"}};
  proc_.write(sh);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  exec(sh, "sh", "/usr/bin/dash", {"sh", "-c", "true"});  // sh runs sh: a new image, the same name
  proc_.write(sh);
  sampler.tick(200);
  auto recording = finish(200);
  ASSERT_EQ(recording.processes.size(), 1u);
  EXPECT_EQ(recording.processes[0].cmdline, sh.cmdline);
  ASSERT_EQ(recording.execs.size(), 1u);
  EXPECT_EQ(recording.execs[0].text, "sh -c true");
}

TEST_F(TreeSamplerFakeProc, AProcessThatRenamesItselfHasNotExeced) {
  FakeProcess worker{.pid = kRootPid, .name = "stress-ng", .exe = "/usr/bin/stress-ng",
                     .cmdline = {"stress-ng", "--malloc", "1"}};
  proc_.write(worker);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  worker.name = "stress-ng-mallo";  // prctl(PR_SET_NAME): the image, executable and arguments stay
  worker.run_ns += 1'000'000;
  proc_.write(worker);
  sampler.tick(200);
  auto recording = finish(300);
  ASSERT_EQ(recording.processes.size(), 1u);
  EXPECT_TRUE(recording.execs.empty());
  EXPECT_EQ(recording.processes[0].name, "stress-ng-mallo");
  EXPECT_EQ(recording.processes[0].cmdline, worker.cmdline);
}

TEST_F(TreeSamplerFakeProc, AnExecCaughtBeforeItsProgramIsMappedIsAnExec) {
  FakeProcess sh{.pid = kRootPid, .name = "sh", .exe = "/usr/bin/dash", .cmdline = {"sh", "-c", "cc a.c"}};
  proc_.write(sh);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  // Mid-exec: the new name is set, the new image not yet mapped (start_code 0).
  FakeProcess execing = sh;
  exec(execing, "cc", "/usr/bin/gcc", {"cc", "a.c"});
  const uint64_t start_code = execing.start_code;
  execing.start_code = 0;
  proc_.write(execing);
  sampler.tick(200);
  execing.start_code = start_code;
  proc_.write(execing);
  sampler.tick(300);
  auto recording = finish(300);
  ASSERT_EQ(recording.processes.size(), 1u);
  ASSERT_EQ(recording.execs.size(), 1u);
  EXPECT_EQ(recording.execs[0].t_ms, 200);
  EXPECT_EQ(recording.execs[0].text, "cc a.c");
  EXPECT_EQ(recording.processes[0].name, "cc");
}

TEST_F(TreeSamplerFakeProc, AProcessLettingGoOfItsImageAsItExitsHasNotExeced) {
  FakeProcess cc{.pid = kRootPid, .name = "cc", .exe = "/usr/bin/gcc", .cmdline = {"cc", "a.c"}};
  proc_.write(cc);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  // Exiting, not yet a zombie: its memory is released first, and with it go the image's
  // addresses in stat, its executable and its arguments.
  FakeProcess exiting = cc;
  exiting.start_code = 0;
  exiting.start_stack = 0;
  exiting.size_pages = exiting.resident_pages = exiting.shared_pages = 0;
  exiting.exe.clear();
  exiting.cmdline.clear();
  exiting.run_ns += 1'000'000;
  proc_.write(exiting);
  sampler.tick(200);
  become_zombie(exiting);
  proc_.write(exiting);
  sampler.tick(300);
  auto recording = finish(300);
  ASSERT_EQ(recording.processes.size(), 1u);
  EXPECT_TRUE(recording.execs.empty());
  EXPECT_EQ(recording.processes[0].end_ms, 300);
  EXPECT_EQ(recording.processes[0].exe, "/usr/bin/gcc");
  EXPECT_EQ(recording.processes[0].cmdline, cc.cmdline);
}

// ---- A thread group ----

TEST_F(TreeSamplerFakeProc, AThreadGroupIsOneProcessWhoseThreadsChildrenAreFound) {
  // The leader has two more threads; the second forked a child (its ppid is the group's).
  FakeProcess java{.pid = kRootPid, .name = "java",
                   .other_threads = {{.tid = kRootPid + 10}, {.tid = kRootPid + 11, .children = {kChildPid}}}};
  proc_.write(java);
  proc_.write({.pid = kChildPid, .ppid = kRootPid, .name = "javac", .start_ticks = 2000});
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  // The first thread forks too. The leader's schedstat, the only one read, stays:
  // with more threads than it, the group is read in full anyway.
  java.other_threads[0].children = {kSecond};
  proc_.write(java);
  proc_.write({.pid = kSecond, .ppid = kRootPid, .name = "jar", .start_ticks = 2100});
  sampler.tick(100);
  // A thread ends.
  java.other_threads.pop_back();
  proc_.write(java);
  sampler.tick(200);
  auto recording = finish(200);

  ASSERT_EQ(recording.processes.size(), 3u);  // threads are not processes
  const auto& group = recording.row_of(kRootPid);
  EXPECT_EQ(recording.row_of(kChildPid).parent_id, group.id);
  EXPECT_EQ(recording.row_of(kChildPid).first_seen_ms, 0);
  EXPECT_EQ(recording.row_of(kSecond).parent_id, group.id);
  EXPECT_EQ(recording.row_of(kSecond).first_seen_ms, 100);
  EXPECT_EQ(recording.tick_at(100).processes, 3);
  std::vector<std::pair<int64_t, std::optional<int64_t>>> threads;  // (t_ms, threads) of the group
  for (const auto& sample : recording.samples_of(group.id)) {
    threads.emplace_back(sample.t_ms, sample.values[store::kThreads]);
  }
  EXPECT_EQ(threads, (std::vector<std::pair<int64_t, std::optional<int64_t>>>{{0, 3}, {200, 2}}));
}

TEST_F(TreeSamplerFakeProc, AProcessWhoseMainThreadExitedLivesOnUntilItsLastThreadEnds) {
  FakeProcess server{.pid = kRootPid, .name = "server", .resident_pages = 10 * kPagesPerMiB,
                     .other_threads = {{.tid = kRootPid + 10}}};
  proc_.write(server);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  // main() calls pthread_exit: the leader is a zombie (state Z in the process's own
  // stat, no memory in its statm) while the other thread runs on, with the memory,
  // which grows to 50 MiB.
  become_zombie(server);
  server.resident_pages = 50 * kPagesPerMiB;
  proc_.write(server);
  sampler.tick(200);
  // The other thread forks.
  server.other_threads[0].children = {kChildPid};
  proc_.write(server);
  proc_.write({.pid = kChildPid, .ppid = kRootPid, .name = "worker", .start_ticks = 3000});
  sampler.tick(300);
  // The last thread ends: now the process is a zombie.
  server.other_threads.clear();
  server.run_ns += 100'000;
  proc_.write(server);
  sampler.tick(400);
  auto recording = finish(400);

  const auto& row = recording.row_of(kRootPid);
  EXPECT_EQ(row.end_ms, 400);
  EXPECT_EQ(row.peak_rss_bytes, rss_bytes(server));
  EXPECT_EQ(recording.tick_at(200).processes, 1);
  EXPECT_EQ(recording.tick_at(200).rss_bytes, rss_bytes(server));
  EXPECT_EQ(recording.tick_at(300).processes, 2);
  EXPECT_EQ(recording.row_of(kChildPid).parent_id, row.id);
  EXPECT_EQ(recording.tick_at(400).processes, 1);  // the worker's child
  EXPECT_TRUE(recording.execs.empty());
}

TEST_F(TreeSamplerFakeProc, AnExitGroupStillTearingDownThreadsEndsAtItsExitEvent) {
  FakeProcess linker{.pid = kRootPid, .name = "ld", .other_threads = {{.tid = kRootPid + 10}}};
  proc_.write(linker);
  TreeSampler& sampler = start({.process_events = true});
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  // exit(4) from main: the leader is a zombie before the other thread is gone, as a
  // tick and then the leader's exit event find it.
  become_zombie(linker);
  proc_.write(linker);
  sampler.tick(200);
  sampler.on_exit(kRootPid, W_EXITCODE(4, 0), 250);
  auto recording = finish(300);
  ASSERT_EQ(recording.processes.size(), 1u);
  EXPECT_EQ(recording.processes[0].end_ms, 250);
  EXPECT_EQ(recording.processes[0].exit_code, 4);
}

TEST_F(TreeSamplerFakeProc, AnExecByAnotherThreadIsNotTheProcesssExit) {
  FakeProcess java{.pid = kRootPid, .name = "java", .exe = "/usr/bin/java", .cmdline = {"java", "-jar", "x.jar"},
                   .other_threads = {{.tid = kRootPid + 10}}};
  proc_.write(java);
  TreeSampler& sampler = start({.process_events = true});
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  // Its second thread execs: the kernel ends the leader thread (an exit event of the
  // PID), and the thread takes its place, alone, running the new program.
  exec(java, "sh", "/usr/bin/dash", {"sh", "-c", "true"});
  java.other_threads.clear();
  proc_.write(java);
  sampler.on_exit(kRootPid, 0, 150);
  sampler.on_exec(kRootPid, 150, probe::now_monotonic_ns());
  sampler.tick(200);
  auto recording = finish(200);

  ASSERT_EQ(recording.processes.size(), 1u);
  EXPECT_FALSE(recording.processes[0].end_ms);
  EXPECT_EQ(recording.processes[0].cmdline, java.cmdline);
  ASSERT_EQ(recording.execs.size(), 1u);
  EXPECT_EQ(recording.execs[0].t_ms, 150);
  EXPECT_EQ(recording.tick_at(200).processes, 1);
}

// ---- A name with a newline ----

TEST_F(TreeSamplerFakeProc, ANameWithANewlineAndParenthesesIsStoredExactly) {
  // Read up to the first ')', stat would say this process is a zombie whose parent is 1.
  const std::string odd = "a\nb) Z 1 (c";
  const std::string renamed = "new)\n(name";
  FakeProcess root{.pid = kRootPid, .ppid = 4242, .name = odd, .start_ticks = 3000, .children = {kChildPid}};
  FakeProcess child{.pid = kChildPid, .ppid = kRootPid, .name = "x)\n(y", .start_ticks = 3001, .cmdline = {"./x)\n(y"}};
  proc_.write(root);
  proc_.write(child);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  exec(child, renamed, "/tmp/new)\n(name", {"./new)\n(name"});  // a program whose name has a newline
  proc_.write(child);
  sampler.tick(100);
  auto recording = finish(100);

  ASSERT_EQ(recording.processes.size(), 2u);
  const auto& root_row = recording.row_of(kRootPid);
  EXPECT_EQ(root_row.name, odd);
  EXPECT_EQ(root_row.ppid, 4242);
  EXPECT_EQ(root_row.start_ticks, 3000);
  EXPECT_FALSE(root_row.end_ms);  // alive: state S, not the Z inside its name
  EXPECT_EQ(recording.tick_at(100).processes, 2);
  const auto& child_row = recording.row_of(kChildPid);
  EXPECT_EQ(child_row.name, renamed);
  EXPECT_EQ(child_row.cmdline, child.cmdline);
  ASSERT_EQ(recording.execs.size(), 1u);
  EXPECT_EQ(recording.execs[0].text, "./new)\n(name");
}

// ---- A command line rewritten into a title ----

TEST_F(TreeSamplerFakeProc, ATitlesPaddingIsNoArguments) {
  // setproctitle writes the title over argv and clears the rest of its space: the
  // kernel's cmdline is the title, then NULs where the arguments were. An empty
  // argument a command was given last is read as padding too.
  FakeProcess root{.pid = kRootPid, .name = "stress-ng", .children = {kChildPid}};
  FakeProcess worker{.pid = kChildPid, .ppid = kRootPid, .name = "stress-ng-cpu", .start_ticks = 3001,
                     .cmdline = {"stress-ng-cpu [run]", "", "", "", "", "", ""}};
  proc_.write(root);
  proc_.write(worker);
  TreeSampler& sampler = start();
  ASSERT_TRUE(sampler.add_root(kRootPid, 0));
  sampler.tick(100);
  auto recording = finish(100);

  EXPECT_EQ(recording.row_of(kChildPid).cmdline, (std::vector<std::string>{"stress-ng-cpu [run]"}));
  EXPECT_EQ(recording.row_of(kRootPid).cmdline, root.cmdline) << "an ordinary command line is read as it is";
}

}  // namespace
}  // namespace canopy::record
