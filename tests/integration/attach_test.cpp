// canopy record --pid: a tree that was running before canopy started.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

TEST(Attach, RecordsARunningTreeUntilItEnds) {
  TempDir dir;
  std::filesystem::create_directory(dir.file("work"));
  RunOptions in_work;
  in_work.cwd = dir.file("work");
  Started tree({kWorkload, "tree"}, in_work);
  // Let the children start and touch their memory, then attach.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::string path = dir.file("attach.canopy");
  auto result = run({kCanopy, "record", "-q", "--pid", std::to_string(tree.pid()), "-o", path});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(tree.wait().exit_status, 0);

  auto reader = open_recording(path);
  EXPECT_EQ(reader.meta().mode, "attach");
  // The command and its directory are the attached process's, not canopy's.
  EXPECT_EQ(reader.meta().command, (std::vector<std::string>{kWorkload, "tree"}));
  EXPECT_EQ(reader.meta().cwd, std::filesystem::canonical(dir.file("work")).string());
  auto report = run({kCanopy, "report", path});
  EXPECT_EQ(report.out.substr(0, report.out.find('\n')),
            "canopy: attached to PID " + std::to_string(tree.pid()) + " " + kWorkload + " tree");
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_GE(processes->size(), 4u);
  EXPECT_EQ(processes->front().pid, tree.pid());
  auto peaks = anon_peaks(reader);
  int held = 0;
  for (const auto& p : *processes) {
    if (p.cmdline.size() == 5 && p.cmdline[1] == "hold" && p.cmdline[4] == "child") {
      int64_t size = std::stoll(p.cmdline[2]);
      EXPECT_EQ(p.parent_id, processes->front().id);
      EXPECT_NEAR(static_cast<double>(peaks[p.id]), mib(size), mib(size) * 0.05) << size << " MiB child";
      ++held;
    }
  }
  EXPECT_EQ(held, 3);
  EXPECT_TRUE(processes->front().end_ms);
}

TEST(Attach, CtrlCStopsAndKeepsTheRecording) {
  TempDir dir;
  // Attach only once its 8 MiB are touched (it says so with a file in `ready`): how
  // long touching takes is the machine's page-fault speed.
  std::string ready = dir.file("ready");
  std::filesystem::create_directory(ready);
  RunOptions options;
  options.env["CANOPY_WORKLOAD_HOLD_WITH"] = ready + " 1";
  Started sleeper({kWorkload, "hold", "8", "20000"}, options);
  for (int waited_ms = 0; std::filesystem::is_empty(ready) && waited_ms < 60'000; waited_ms += 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(std::filesystem::is_empty(ready)) << "the holder never touched its memory";
  std::string path = dir.file("stop.canopy");
  Started canopy({kCanopy, "record", "-q", "--pid", std::to_string(sleeper.pid()), "-o", path});
  // Ctrl-C once canopy handles it: it blocks the signal before it creates the
  // recording (a SIGINT before that ends it as it would any program). Then a few ticks.
  for (int waited_ms = 0; !std::filesystem::exists(path) && waited_ms < 60'000; waited_ms += 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  canopy.signal(SIGINT);
  auto result = canopy.wait();
  EXPECT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  EXPECT_TRUE(reader.meta().end_ms);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 1u);
  EXPECT_FALSE(processes->front().end_ms) << "still running when the recording stopped";
  EXPECT_GE(*processes->front().peak_rss_bytes, mib(8));
}

TEST(Attach, ADurationStopsTheRecordingAndLeavesTheProcessRunning) {
  // A holder of 8 MiB for ten minutes, recorded for one second of it.
  Started holder({kWorkload, "hold", "8", "600000"});
  TempDir dir;
  std::string path = dir.file("second.canopy");
  auto result = run({kCanopy, "record", "-q", "--pid", std::to_string(holder.pid()), "--duration", "1s", "-o", path});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(::kill(holder.pid(), 0), 0) << "the process runs on after the recording";

  auto reader = open_recording(path);
  ASSERT_TRUE(reader.meta().start_ms && reader.meta().end_ms);
  EXPECT_GE(*reader.meta().end_ms - *reader.meta().start_ms, 1000);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 1u);
  EXPECT_FALSE(processes->front().end_ms) << "still running when the recording stopped";
  holder.signal(SIGKILL);
  holder.wait();
}

// Records `process` (attached, with `flags`) into `path`, then ends it: a holder or a
// sleeper that would otherwise outlive the test.
Finished record_then_kill(Started& process, const std::string& path, const std::vector<std::string>& flags) {
  std::vector<std::string> argv{kCanopy, "record", "-q", "--pid", std::to_string(process.pid()), "-o", path};
  argv.insert(argv.end(), flags.begin(), flags.end());
  Finished result = run(argv);
  process.signal(SIGKILL);
  process.wait();
  return result;
}

TEST(Attach, TheFirstTickIsAtTheStart) {
  // The attached tree is there from the start: its figures are too, not one interval
  // later. --duration 1ms ends the recording at the first tick at or after 1 ms: the
  // one at the start, or else the next; an interval of 10 s tells them apart.
  Started holder({kWorkload, "hold", "8", "600000"});
  TempDir dir;
  std::string path = dir.file("first.canopy");
  auto result = record_then_kill(holder, path, {"--interval", "10s", "--duration", "1ms"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  auto ticks = reader.ticks();
  ASSERT_TRUE(ticks);
  ASSERT_FALSE(ticks->empty());
  EXPECT_LT(ticks->front().t_ms - *reader.meta().start_ms, 10'000);
  EXPECT_EQ(ticks->front().processes, 1);
}

TEST(Attach, TheTreesCpuIsWhatItUsedWhileRecorded) {
  // A shell that counts to 200000 (CPU time a loop of the shell's own spends, however
  // fast the machine), then becomes `sleep`, keeping that time (exec does not reset it).
  // Attached to once it sleeps, its tree used no CPU while recorded: the summary must not
  // count the time it used before, as a service's hours would read.
  Started sleeper({"sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; exec sleep 600"});
  const std::string comm = "/proc/" + std::to_string(sleeper.pid()) + "/comm";
  for (int waited_ms = 0; read_file(comm) != "sleep\n" && waited_ms < 120'000; waited_ms += 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(read_file(comm), "sleep\n");
  TempDir dir;
  std::string path = dir.file("cpu.canopy");
  auto result = record_then_kill(sleeper, path, {"--duration", "300ms"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 1u);
  const int64_t lifetime_ns = processes->front().cpu_user_ns.value_or(0) + processes->front().cpu_system_ns.value_or(0);
  ASSERT_GE(lifetime_ns, 10'000'000) << "the loop took at least a clock tick or so of CPU";
  auto json = nlohmann::json::parse(run({kCanopy, "report", "--json", path}).out);
  // A sleeping process's CPU moves by at most a few clock ticks in its wakeups.
  EXPECT_LT(json["cpu_user_ns"].get<int64_t>() + json["cpu_system_ns"].get<int64_t>(), lifetime_ns / 2);
}

TEST(Attach, AKernelThreadIsSaidToBeOne) {
  // kthreadd is PID 2 wherever the kernel's threads are visible (not in a container's
  // PID namespace): its flags say PF_KTHREAD. It has no exe link, which was taken for
  // a permission the recorder lacked.
  const std::string stat = read_file("/proc/2/stat");
  if (stat.find("(kthreadd)") == std::string::npos) {
    GTEST_SKIP() << "no kernel thread is visible as PID 2 here: " << stat;
  }
  TempDir dir;
  auto result = run({kCanopy, "record", "-q", "--pid", "2", "-o", dir.file("k.canopy")});
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_EQ(result.err, "canopy: cannot attach to PID 2: it is a kernel thread (kthreadd): it has no user memory to "
                        "record\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("k.canopy")));
}

TEST(Attach, MissingPid) {
  pid_t missing = 999999;
  while (std::filesystem::exists("/proc/" + std::to_string(missing))) {
    --missing;
  }
  auto result = run({kCanopy, "record", "--pid", std::to_string(missing)});
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_EQ(result.err, "canopy: cannot attach to PID " + std::to_string(missing) + ": no such process\n");
}

TEST(Attach, AZombieIsSaidToHaveExited) {
  // A child that has exited and that this test has not waited for: a zombie, whose /proc
  // files the user may read but which has no memory, program or tree left to record.
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::_exit(3);
  }
  std::string state;
  for (int i = 0; i < 5000 && state != "Z"; ++i) {  // until it has exited, however busy the machine is
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string fields;
    std::getline(stat, fields);
    state = fields.substr(fields.rfind(')') + 2, 1);
  }
  ASSERT_EQ(state, "Z");
  auto result = run({kCanopy, "record", "--pid", std::to_string(child)});
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_EQ(result.err, "canopy: cannot attach to PID " + std::to_string(child) +
                            ": it has exited (a zombie: its parent " + std::to_string(::getpid()) +
                            " has not yet waited for it)\n");
}

TEST(Attach, PidTheUserMayNotRead) {
  // PID 1 belongs to root; as root, drop to nobody to be the user who may not read it.
  RunOptions options;
  if (::getuid() == 0) {
    options.prefix = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  }
  TempDir dir;
  options.cwd = "/tmp";
  auto result = run({kCanopy, "record", "--pid", "1", "-o", dir.file("x.canopy")}, options);
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_EQ(result.err,
            "canopy: cannot attach to PID 1: permission denied (its /proc files need the same user or "
            "CAP_SYS_PTRACE)\n");
}

}  // namespace
}  // namespace canopy::testing
