// canopy record on the workload's test tree: three children holding 50, 100 and 150 MiB
// for a second, and a grandchild's child that daemonizes (see canopy_workload.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

const store::ProcessRow* find_by_args(const std::vector<store::ProcessRow>& processes,
                                      const std::vector<std::string>& args_after_exe) {
  for (const auto& p : processes) {
    if (p.cmdline.size() == args_after_exe.size() + 1 &&
        std::equal(args_after_exe.begin(), args_after_exe.end(), p.cmdline.begin() + 1)) {
      return &p;
    }
  }
  return nullptr;
}

class RecordTree : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    path_ = dir_->file("tree.canopy");
    result_ = new Finished(run({kCanopy, "record", "-o", path_, "--", kWorkload, "tree"}));
  }
  static void TearDownTestSuite() {
    delete result_;
    delete dir_;
  }
  static TempDir* dir_;
  static std::string path_;
  static Finished* result_;
};
TempDir* RecordTree::dir_ = nullptr;
std::string RecordTree::path_;
Finished* RecordTree::result_ = nullptr;

TEST_F(RecordTree, ExitsWithTheCommandsStatus) {
  EXPECT_EQ(result_->exit_status, 0) << result_->err;
}

TEST_F(RecordTree, EveryProcessWithItsParent) {
  auto reader = open_recording(path_);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  // root, 3 holders, spawn-daemon, the intermediate, the daemon: each lives >= 300 ms.
  EXPECT_EQ(processes->size(), 7u);
  const auto* root = find_by_args(*processes, {"tree"});
  ASSERT_TRUE(root);
  EXPECT_FALSE(root->parent_id);
  EXPECT_EQ(root->exit_code, 0);
  for (const char* mib : {"50", "100", "150"}) {
    const auto* child = find_by_args(*processes, {"hold", mib, "1000", "child"});
    ASSERT_TRUE(child) << mib;
    EXPECT_EQ(child->parent_id, root->id);
    EXPECT_EQ(child->ppid, root->pid);
    EXPECT_TRUE(child->end_ms);
  }
}

TEST_F(RecordTree, DaemonizedGrandchildStaysInTheTree) {
  auto reader = open_recording(path_);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  const auto* daemon = find_by_args(*processes, {"hold", "20", "1200", "daemon"});
  ASSERT_TRUE(daemon) << "the daemon was not recorded";
  // Orphaned by its parent, it was reparented to canopy (the subreaper), which reaped it.
  EXPECT_EQ(daemon->exit_code, 0);
  const auto* spawner = find_by_args(*processes, {"spawn-daemon"});
  ASSERT_TRUE(spawner);
  // daemon -> intermediate (a fork of spawn-daemon, same args) -> spawn-daemon -> root
  ASSERT_TRUE(daemon->parent_id);
  const auto& intermediate = processes->at(static_cast<size_t>(*daemon->parent_id - 1));
  EXPECT_EQ(intermediate.parent_id, spawner->id);
  auto peaks = anon_peaks(reader);
  EXPECT_NEAR(static_cast<double>(peaks[daemon->id]), mib(20), mib(20) * 0.05);
}

TEST_F(RecordTree, PeaksWithinFivePercentOfWhatWasTouched) {
  auto reader = open_recording(path_);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  auto peaks = anon_peaks(reader);
  for (int64_t size : {50, 100, 150}) {
    const auto* child = find_by_args(*processes, {"hold", std::to_string(size), "1000", "child"});
    ASSERT_TRUE(child);
    EXPECT_NEAR(static_cast<double>(peaks[child->id]), mib(size), mib(size) * 0.05) << size << " MiB child";
    // Resident includes the binary's own pages on top of what it touched.
    EXPECT_GE(*child->peak_rss_bytes, mib(size));
    EXPECT_GE(*child->hwm_bytes, mib(size));
  }
}

TEST_F(RecordTree, TreePeakAndSummary) {
  auto reader = open_recording(path_);
  auto ticks = reader.ticks();
  ASSERT_TRUE(ticks);
  int64_t peak = 0;
  for (const auto& tick : *ticks) {
    peak = std::max(peak, tick.rss_bytes);
    EXPECT_GT(tick.mem_total_bytes, 0);
    EXPECT_GT(tick.mem_available_bytes, 0);
  }
  // 50 + 100 + 150 + 20 MiB are held at the same time.
  EXPECT_GE(peak, mib(320));
  EXPECT_LT(peak, mib(360));
  EXPECT_NE(result_->err.find("peak memory"), std::string::npos) << result_->err;
  // The summary counts what the recording holds, and says where the count comes from
  // (this machine lets canopy hear the kernel's process events).
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  EXPECT_NE(result_->err.find("processes          " + std::to_string(processes->size()) +
                              ", every one, from the kernel's process events\n"),
            std::string::npos)
      << result_->err;
  // Each of the highest peaks says which process of its name it is: the 150 MiB child
  // by its arguments, after its pid and time.
  const auto* largest = find_by_args(*processes, {"hold", "150", "1000", "child"});
  ASSERT_TRUE(largest);
  const size_t at = result_->err.find(" pid " + std::to_string(largest->pid) + " ");
  ASSERT_NE(at, std::string::npos) << result_->err;
  const std::string line = result_->err.substr(at, result_->err.find('\n', at) - at);
  EXPECT_TRUE(line.ends_with(" s  hold 150 1000 child")) << line;
  EXPECT_NE(result_->err.find("open it with       canopy view " + path_), std::string::npos) << result_->err;
}

TEST_F(RecordTree, MetaDescribesTheRun) {
  auto reader = open_recording(path_);
  const auto& meta = reader.meta();
  EXPECT_EQ(meta.mode, "run");
  EXPECT_EQ(meta.interval_ms, 100);
  EXPECT_EQ(meta.exit_code, 0);
  EXPECT_EQ(meta.command, (std::vector<std::string>{kWorkload, "tree"}));
  EXPECT_GT(*meta.end_ms, *meta.start_ms);
  EXPECT_EQ(std::filesystem::status(path_).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write)
      << "recordings hold command lines: private by default";
}

TEST(Record, TenMillisecondInterval) {
  TempDir dir;
  std::string path = dir.file("fast.canopy");
  auto result = run({kCanopy, "record", "-q", "-i", "10", "-o", path, kWorkload, "hold", "30", "600"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  auto reader = open_recording(path);
  auto ticks = reader.ticks();
  ASSERT_TRUE(ticks);
  // 600 ms at 10 ms: 60 ticks on an idle machine; a loaded one may drop some.
  EXPECT_GE(ticks->size(), 30u);
  auto peaks = anon_peaks(reader);
  EXPECT_NEAR(static_cast<double>(peaks[1]), mib(30), mib(30) * 0.05);
}

TEST(Record, IntervalFromEnvironment) {
  TempDir dir;
  struct Case {
    const char* variable;
    const char* value;
    int64_t interval_ms;
  };
  for (auto [variable, value, interval_ms] : {Case{"CANOPY_INTERVAL", "50", 50}, Case{"ONLOOKER_POLL_INTERVAL", "70", 70},
                                              Case{"CANOPY_INTERVAL", "0.25s", 250}}) {
    std::string path = dir.file(std::string(variable) + value + ".canopy");
    RunOptions options;
    options.env["CANOPY_INTERVAL"] = "";
    options.env["ONLOOKER_POLL_INTERVAL"] = "";
    options.env[variable] = value;
    auto result = run({kCanopy, "record", "-q", "-o", path, "--", kWorkload, "exit", "0"}, options);
    ASSERT_EQ(result.exit_status, 0) << result.err;
    EXPECT_EQ(open_recording(path).meta().interval_ms, interval_ms) << variable << "=" << value;
  }
  RunOptions bad;
  bad.env = {{"CANOPY_INTERVAL", "fast"}};
  auto result = run({kCanopy, "record", "-o", dir.file("bad.canopy"), "--", kWorkload, "exit", "0"}, bad);
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_EQ(result.err,
            "canopy: CANOPY_INTERVAL='fast' is not an interval from 1ms to 1h, such as 250ms or 2s (a bare number is "
            "milliseconds)\n");
}

TEST(Record, DefaultNameInTheCurrentDirectory) {
  TempDir dir;
  RunOptions options;
  options.cwd = dir.path();
  auto result = run({kCanopy, "record", "-q", kWorkload, "exit", "0"}, options);
  ASSERT_EQ(result.exit_status, 0) << result.err;
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    names.push_back(entry.path().filename().string());
  }
  ASSERT_EQ(names.size(), 1u);
  EXPECT_TRUE(std::regex_match(names[0], std::regex(R"(canopy-\d{8}-\d{6}-\d+\.canopy)"))) << names[0];
}

// "-o ../x.canopy" is named as a path to paste anywhere: absolute, without its "..".
TEST(Record, TheSummaryNamesTheRecordingByItsResolvedPath) {
  TempDir dir;
  std::filesystem::create_directory(dir.file("sub"));
  RunOptions options;
  options.cwd = dir.file("sub");
  auto result = run({kCanopy, "record", "-o", "../up.canopy", kWorkload, "exit", "0"}, options);
  ASSERT_EQ(result.exit_status, 0) << result.err;
  const std::string resolved = std::filesystem::canonical(dir.file("up.canopy")).string();
  EXPECT_NE(result.err.find("  recording          " + resolved + "\n"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("  open it with       canopy view " + resolved + "\n"), std::string::npos) << result.err;
}

TEST(Record, KeepsAnExistingFileUnlessForced) {
  TempDir dir;
  std::string path = dir.file("keep.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", path, kWorkload, "exit", "0"}).exit_status, 0);
  auto refused = run({kCanopy, "record", "-q", "-o", path, kWorkload, "exit", "3"});
  EXPECT_EQ(refused.exit_status, 125);
  EXPECT_EQ(refused.err, "canopy: cannot write '" + path + "': file exists (use --force to replace it)\n");
  EXPECT_EQ(open_recording(path).meta().exit_code, 0);
  auto forced = run({kCanopy, "record", "-q", "--force", "-o", path, kWorkload, "exit", "3"});
  EXPECT_EQ(forced.exit_status, 3);
  EXPECT_EQ(open_recording(path).meta().exit_code, 3);
}

TEST(Record, PssAndUss) {
  TempDir dir;
  std::string path = dir.file("pss.canopy");
  auto result =
      run({kCanopy, "record", "-q", "--pss", "--pss-interval", "200", "-o", path, kWorkload, "hold", "40", "1000"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  int64_t pss = 0;
  int64_t uss = 0;
  ASSERT_TRUE(reader.for_each_sample([&](int64_t, int64_t, const store::SampleValues& v) {
    pss = std::max(pss, v[store::kPssBytes].value_or(0));
    uss = std::max(uss, v[store::kUssBytes].value_or(0));
  }));
  // 40 MiB of private anonymous memory: both PSS and USS hold all of it.
  EXPECT_GE(uss, mib(40));
  EXPECT_LT(uss, mib(44));
  EXPECT_GE(pss, uss);
  EXPECT_LT(pss, mib(46));
}

}  // namespace
}  // namespace canopy::testing

namespace canopy::testing {
namespace {

TEST(Record, ExecUnderTheSameNameUpdatesTheCommandLine) {
  // Sampled for 300 ms as `reexec`, then the same binary (same name) becomes `hold`.
  TempDir dir;
  std::string path = dir.file("reexec.canopy");
  auto result = run({kCanopy, "record", "-q", "-o", path, "--", kWorkload, "reexec", "300", "hold", "12", "400"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 1u);
  EXPECT_EQ(processes->front().cmdline, (std::vector<std::string>{kWorkload, "hold", "12", "400"}));
  auto events = reader.events();
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ(events->front().kind, "exec");
  EXPECT_EQ(events->front().text, kWorkload + " hold 12 400");
}

TEST(Record, AProgramThatRenamesItselfHasNotExeced) {
  // Renamed at once, then seen by the 50 ticks of its 500 ms under its new name.
  TempDir dir;
  std::string path = dir.file("rename.canopy");
  auto result =
      run({kCanopy, "record", "-q", "-i", "10ms", "-o", path, "--", kWorkload, "rename", "pool-worker", "500"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 1u);
  EXPECT_EQ(processes->front().name, "pool-worker");
  EXPECT_EQ(processes->front().cmdline, (std::vector<std::string>{kWorkload, "rename", "pool-worker", "500"}));
  auto events = reader.events();
  ASSERT_TRUE(events);
  EXPECT_TRUE(events->empty()) << events->front().kind << " " << events->front().text;
}

TEST(Record, AForkThatTitlesItselfIsRecordedByItsTitle) {
  // The titled fork writes its title at once and sleeps: whichever tick reads it first
  // after that (it ran since the one before) finds the title, within the ticks a fork's
  // title is read on. The other fork keeps its parent's arguments.
  TempDir dir;
  std::string path = dir.file("titles.canopy");
  const std::string title = "canopy_workload: worker one";
  auto result = run({kCanopy, "record", "-q", "-o", path, "--", kWorkload, "titles", title, "1500"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto processes = open_recording(path).processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 3u);
  const std::vector<std::string> arguments = {kWorkload, "titles", title, "1500"};
  EXPECT_EQ((*processes)[0].cmdline, arguments);
  EXPECT_EQ((*processes)[1].cmdline, (std::vector<std::string>{title}));
  EXPECT_EQ((*processes)[2].cmdline, arguments);

  // What ps shows is what the summary tells the fork by.
  auto report = run({kCanopy, "report", path});
  ASSERT_EQ(report.exit_status, 0) << report.err;
  EXPECT_NE(report.out.find("  worker one\n"), std::string::npos) << report.out;
}

TEST(Record, WithoutAddressRandomisationAnExecOfTheSameProgramIsStillSeen) {
  // setarch -R (as a sanitizer's re-exec does) gives a program that forks and execs
  // itself the very same image: only the command line tells the exec happened.
  TempDir dir;
  std::string path = dir.file("no-aslr.canopy");
  auto result = run({kCanopy, "record", "-q", "-o", path, "--", "sh", "-c",
                     "exec setarch \"$(uname -m)\" -R " + kWorkload + " tree"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto processes = open_recording(path).processes();
  ASSERT_TRUE(processes);
  for (const char* mib : {"50", "100", "150"}) {
    EXPECT_TRUE(find_by_args(*processes, {"hold", mib, "1000", "child"})) << mib << " MiB child";
  }
  EXPECT_TRUE(find_by_args(*processes, {"hold", "20", "1200", "daemon"}));
  int trees = 0;
  for (const auto& p : *processes) {
    trees += p.cmdline.size() == 2 && p.cmdline[1] == "tree" ? 1 : 0;
  }
  EXPECT_EQ(trees, 1) << "a child kept its parent's command line";
}

// At +0.3 s the subshell starts `sleep 2` in the background and exits at once: the
// sleep is orphaned and reparented to canopy (the subreaper). Returns the sleep's row
// and its parent's, if it has one.
std::pair<store::ProcessRow, std::optional<store::ProcessRow>> record_an_orphan(const std::vector<std::string>& flags) {
  TempDir dir;
  std::string path = dir.file("orphan.canopy");
  std::vector<std::string> argv{kCanopy, "record", "-q", "-o", path};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"--", "sh", "-c", "sleep 0.3; (sleep 2 &); sleep 0.5"});
  auto result = run(argv);
  EXPECT_EQ(result.exit_status, 0) << result.err;
  auto processes = open_recording(path).processes();
  EXPECT_TRUE(processes);
  std::vector<store::ProcessRow> orphans;
  for (const auto& p : *processes) {
    if (p.cmdline == std::vector<std::string>{"sleep", "2"}) {
      orphans.push_back(p);
    }
  }
  EXPECT_EQ(orphans.size(), 1u);
  if (orphans.empty()) {
    return {};
  }
  std::optional<store::ProcessRow> parent;
  if (orphans[0].parent_id) {
    parent = processes->at(static_cast<size_t>(*orphans[0].parent_id - 1));
  }
  return {orphans[0], parent};
}

TEST(Record, AnOrphanKeepsItsRealParentWithProcessEvents) {
  // Its fork event names the subshell, before the subshell is gone.
  auto [orphan, parent] = record_an_orphan({});
  EXPECT_FALSE(orphan.adopted);
  ASSERT_TRUE(parent);
  EXPECT_EQ(parent->name, "sh");
  EXPECT_TRUE(parent->parent_id) << "the subshell is the root's child";
  EXPECT_FALSE(orphan.end_ms) << "still running when the command ended";
}

TEST(Record, PollingAdoptsOrphansOfTheTree) {
  // Ticks at +0 s and +1 s: none sees the subshell, which lives about a millisecond at
  // +0.3 s (at the default 100 ms a tick could, now and then, and then the sleep has a
  // parent). The sleep is found among canopy's own children.
  auto [orphan, parent] = record_an_orphan({"--no-process-events", "-i", "1000"});
  EXPECT_TRUE(orphan.adopted);
  EXPECT_FALSE(parent);
  EXPECT_FALSE(orphan.end_ms) << "still running when the command ended";
}

}  // namespace
}  // namespace canopy::testing
