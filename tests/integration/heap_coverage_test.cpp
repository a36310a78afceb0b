// What record --heap reaches and what it says it did not. A tree of the programs the
// profiler cannot load into (a static one, one started with `env -i`, a setuid one
// where the test can make one), one it loads into that ends without reporting (it
// allocates nothing, and ends with _exit), one gone before the recorder could look,
// and ordinary ones: every process of the recording is profiled or has its reason.
// And a program that allocates before main and after it: both are in its profile.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

const std::string kCoverageWorkload = CANOPY_HEAP_COVERAGE_WORKLOAD_BIN;
const std::string kLifetimeWorkload = CANOPY_HEAP_LIFETIME_WORKLOAD_BIN;
const std::string kChild = CANOPY_HEAP_COVERAGE_CHILD_BIN;
const std::string kStaticChild = CANOPY_HEAP_COVERAGE_CHILD_STATIC_BIN;  // empty: the toolchain cannot link one

constexpr int64_t kCoverageRateBytes = 4096;

// A copy of the small program that the kernel runs in secure-execution mode, or why the
// test cannot make one. As root: owned by nobody with the setuid bit (root running it
// gets nobody's effective uid, hence AT_SECURE; a setuid-root program would change
// nothing for root, and the loader would preload as usual). As another user: setgid
// to one of its supplementary groups. Never on a file system mounted nosuid.
struct SecureCopy {
  std::string path;
  std::string why_not;
};

SecureCopy secure_copy(const TempDir& dir) {
  struct statvfs mount {};
  if (::statvfs(dir.path().c_str(), &mount) != 0 || (mount.f_flag & ST_NOSUID)) {
    return {"", dir.path() + " is on a file system mounted nosuid"};
  }
  std::string path = dir.file("setuid_child");
  std::filesystem::copy_file(kChild, path);
  if (::geteuid() == 0) {
    constexpr uid_t kNobody = 65534;
    if (::chown(path.c_str(), kNobody, kNobody) != 0 || ::chmod(path.c_str(), 04755) != 0) {
      return {"", "cannot give " + path + " to nobody with the setuid bit"};
    }
    return {path, ""};
  }
  gid_t groups[64];
  int count = ::getgroups(64, groups);
  for (int i = 0; i < count; ++i) {
    if (groups[i] != ::getegid() && ::chown(path.c_str(), static_cast<uid_t>(-1), groups[i]) == 0 &&
        ::chmod(path.c_str(), 02755) == 0) {
      return {path, ""};
    }
  }
  return {"", "not root, and no supplementary group to make a setgid program with"};
}

// The PID in the driver's line "WORD NAME PID".
pid_t driver_pid(Started& canopy, const std::string& word, const std::string& name) {
  return pid_in_output(canopy, word + " " + name + " ");
}

std::optional<store::ProcessRow> process_of_pid(const std::vector<store::ProcessRow>& processes, pid_t pid) {
  for (const store::ProcessRow& process : processes) {
    if (process.pid == pid) {
      return process;
    }
  }
  return std::nullopt;
}

TEST(HeapCoverage, EveryProcessNotProfiledIsRecordedWithWhy) {
  TempDir dir;
  std::string path = dir.file("coverage.canopy");
  std::string fifo = dir.file("commands");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  SecureCopy secure = secure_copy(dir);
  if (!secure.why_not.empty()) {
    std::printf("the setuid case is not tried: %s\n", secure.why_not.c_str());
  }
  if (kStaticChild.empty()) {
    std::printf("the static case is not tried: the toolchain cannot link a static program\n");
  }

  Started canopy({kCanopy, "record", "-q", "--heap=" + std::to_string(kCoverageRateBytes), "-o", path, "--",
                  kCoverageWorkload, "driver", fifo});
  int commands_fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);  // waits for the driver
  ASSERT_GE(commands_fd, 0);
  auto command = [&](const std::string& line) {
    std::string text = line + "\n";
    ASSERT_EQ(::write(commands_fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  };

  // Each held program's command line, as the recording must come to show it.
  std::map<std::string, std::vector<std::string>> held = {
      {"environment", {kChild}},
      {"tiny", {kChild, "_exit"}},
      {"allocating", {kCoverageWorkload, "allocate"}},
  };
  command("hold environment /usr/bin/env -i " + kChild);
  command("hold tiny " + kChild + " _exit");
  command("hold allocating " + kCoverageWorkload + " allocate");
  if (!kStaticChild.empty()) {
    held["static"] = {kStaticChild};
    command("hold static " + kStaticChild);
  }
  if (!secure.path.empty()) {
    held["setuid"] = {secure.path};
    command("hold setuid " + secure.path);
  }
  std::map<std::string, pid_t> pids;
  for (const auto& [name, cmdline] : held) {
    pids[name] = driver_pid(canopy, "held", name);
  }
  // The recorder looks at a program as it learns of it, and writes its command line
  // then: once the recording shows each one's, each has been looked at.
  ASSERT_TRUE(wait_for_recording(path, [&](const store::Reader& live) {
    auto processes = live.processes();
    if (!processes) {
      return false;
    }
    for (const auto& [name, cmdline] : held) {
      auto process = process_of_pid(*processes, pids[name]);
      if (!process || process->cmdline != cmdline) {
        return false;
      }
    }
    return true;
  })) << "the recording never showed every held program";

  // A program gone before the recorder could look: it is started and ended while the
  // recorder is stopped, and waits in the kernel's queue of process events.
  canopy.signal(SIGSTOP);
  command("brief unknown " + (kStaticChild.empty() ? kChild + " _exit" : kStaticChild));
  pids["unknown"] = driver_pid(canopy, "ended", "unknown");
  // A fork that ends at once, without an exec: the recorder, stopped, finds a zombie
  // that shows no program. The kernel's exit record says it ran its parent's.
  command("fork zombie");
  pids["zombie"] = driver_pid(canopy, "forked", "zombie");
  canopy.signal(SIGCONT);

  command("release");
  ASSERT_TRUE(canopy.wait_for_output("released\n")) << canopy.output();
  ::close(commands_fd);
  Finished finished = canopy.wait();
  ASSERT_EQ(finished.exit_status, 0) << finished.err;

  auto reader = open_recording(path);
  auto profile = reader.heap_profile();
  ASSERT_TRUE(profile) << profile.error().message;
  auto processes = reader.processes();
  ASSERT_TRUE(processes) << processes.error().message;
  ASSERT_TRUE(profile->unprofiled_recorded);

  std::map<pid_t, std::string> expected = {
      {pids["environment"], "environment"},
      {pids["tiny"], "no samples"},
      {pids["unknown"], "unknown"},
      // The driver is profiled: its child was to be, and sampled nothing.
      {pids["zombie"], reader.meta().exit_records == "taskstats" ? "no samples" : "unknown"},
  };
  if (!kStaticChild.empty()) {
    expected[pids["static"]] = "static";
  }
  if (!secure.path.empty()) {
    expected[pids["setuid"]] = "setuid";
  }
  std::map<pid_t, std::string> unprofiled;
  for (const store::HeapUnprofiledRow& row : profile->unprofiled) {
    unprofiled[static_cast<pid_t>(row.pid)] = row.reason;
    EXPECT_EQ(row.rate_bytes, kCoverageRateBytes);
  }
  EXPECT_EQ(unprofiled, expected);

  // The others were profiled: the driver and the program that allocates. Every
  // process of the recording is one or the other.
  std::set<int64_t> imaged;
  for (const store::HeapImageRow& image : profile->images) {
    imaged.insert(image.pid);
  }
  EXPECT_TRUE(imaged.count(pids["allocating"]));
  EXPECT_TRUE(imaged.count((*processes)[0].pid)) << "the driver";
  for (const store::ProcessRow& process : *processes) {
    EXPECT_TRUE(imaged.count(process.pid) || unprofiled.count(static_cast<pid_t>(process.pid)))
        << "pid " << process.pid << " (" << process.name << "): neither profiled nor said why";
  }
  EXPECT_EQ(processes->size(), expected.size() + 2);
  // The zombie never exec'd: its command line is the driver's, which it ran.
  if (reader.meta().exit_records == "taskstats") {
    auto zombie = process_of_pid(*processes, pids["zombie"]);
    ASSERT_TRUE(zombie);
    EXPECT_EQ(zombie->cmdline, (*processes)[0].cmdline);
    EXPECT_FALSE(zombie->named_from_exit_record);
  }

  // canopy heap: counts per reason, and the processes by PID.
  auto json_run = run({kCanopy, "heap", "--json", path});
  ASSERT_EQ(json_run.exit_status, 0) << json_run.err;
  auto json = nlohmann::json::parse(json_run.out)["not_profiled"];
  EXPECT_EQ(json["recorded"], true);
  EXPECT_EQ(json["processes"], processes->size());
  EXPECT_EQ(json["unprofiled"], expected.size());
  std::map<std::string, int64_t> per_reason;
  for (const auto& [pid, reason] : expected) {
    ++per_reason[reason];
  }
  for (const auto& group : json["reasons"]) {
    const std::string reason = group["reason"].get<std::string>();
    EXPECT_EQ(group["processes"].get<int64_t>(), per_reason[reason]) << group.dump();
    ASSERT_EQ(group["first"].size(), static_cast<size_t>(per_reason[reason])) << group.dump();
    for (const auto& first : group["first"]) {
      auto it = expected.find(first["pid"].get<pid_t>());
      ASSERT_NE(it, expected.end()) << group.dump();
      EXPECT_EQ(it->second, reason);
    }
  }
  EXPECT_EQ(json["reasons"].size(), per_reason.size());
  auto text_run = run({kCanopy, "heap", path});
  ASSERT_EQ(text_run.exit_status, 0) << text_run.err;
  std::string heading = "not profiled: " + std::to_string(expected.size()) + " of " +
                        std::to_string(processes->size()) + " processes\n";
  EXPECT_NE(text_run.out.find(heading), std::string::npos) << text_run.out;
  EXPECT_NE(text_run.out.find("  environment (1): "), std::string::npos) << text_run.out;
  EXPECT_NE(text_run.out.find("    pid " + std::to_string(pids["environment"]) + "  " + kChild + "\n"),
            std::string::npos)
      << text_run.out;
  // The summary counts them too, one reason at a time: the most processes first, then
  // in the order of the reasons' names.
  std::vector<std::pair<std::string, int64_t>> ordered(per_reason.begin(), per_reason.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string reasons;
  for (const auto& [reason, count] : ordered) {
    reasons += (reasons.empty() ? "" : ", ") + std::to_string(count) + " " + reason;
  }
  auto report_run = run({kCanopy, "report", path});
  ASSERT_EQ(report_run.exit_status, 0) << report_run.err;
  EXPECT_NE(report_run.out.find("  heap profile       2 of " + std::to_string(processes->size()) +
                                " processes (not profiled: " + reasons + "); see canopy heap "),
            std::string::npos)
      << report_run.out;
  // Asked about one PID the profiler did not reach, canopy heap says why.
  auto tiny_run = run({kCanopy, "heap", "--pid", std::to_string(pids["tiny"]), path});
  ASSERT_EQ(tiny_run.exit_status, 0) << tiny_run.err;
  EXPECT_NE(tiny_run.out.find("not profiled: 1 of 1 process\n  no samples (1): "), std::string::npos)
      << tiny_run.out;
}

// As in heap_lifetime_workload.cpp.
struct LifetimeSite {
  int64_t block_bytes;
  int64_t blocks;
  const char* function;
};
constexpr LifetimeSite kBeforeMain{4000, 1300, "allocate_before_main"};
constexpr LifetimeSite kAfterExit{6000, 1060, "allocate_after_exit"};

// Each block is sampled with p = 1 - exp(-size / 4096): 0.623 for 4000 bytes, 0.769
// for 6000. A site goes unseen with probability (1 - p)^n = exp(-n size / 4096), below
// exp(-1200), and its estimate is (size / p) times the number sampled, N ~ Binomial(n,
// p) with mean mu = n p (810 before main, 815 after exit). By Chernoff's bounds the
// estimate is off by more than 25% with probability at most exp(-0.25^2 mu / 2.25) +
// exp(-0.25^2 mu / 2) < 3e-10 per site, so a failure of this test is a bug.
TEST(HeapCoverage, AllocationsBeforeMainAndAfterExitAreEstimatedWithinAQuarter) {
  TempDir dir;
  std::string path = dir.file("lifetime.canopy");
  auto recorded = run({kCanopy, "record", "-q", "--heap=" + std::to_string(kCoverageRateBytes), "-o", path, "--",
                       kLifetimeWorkload});
  ASSERT_EQ(recorded.exit_status, 0) << recorded.err;
  auto result = run({kCanopy, "heap", "--json", "--top", "20", path});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto json = nlohmann::json::parse(result.out);
  ASSERT_EQ(json["images"].size(), 1u) << result.out;
  const auto& image = json["images"][0];
  EXPECT_EQ(image["end"], "exit");
  EXPECT_EQ(image["samples_dropped"], 0);
  for (const LifetimeSite& site : {kBeforeMain, kAfterExit}) {
    int64_t in_use_bytes = 0;
    int stacks = 0;
    for (const auto& stack : image["at_end"]["stacks"]) {
      for (const auto& frame : stack["frames"]) {
        if (frame["function"].get<std::string>().find(site.function) != std::string::npos) {
          in_use_bytes += stack["in_use_bytes"].get<int64_t>();
          ++stacks;
          break;
        }
      }
    }
    double truth = static_cast<double>(site.block_bytes * site.blocks);
    EXPECT_GE(stacks, 1) << site.function << " is in no stack at the end: " << result.out;
    EXPECT_NEAR(static_cast<double>(in_use_bytes), truth, truth * 0.25) << site.function;
  }
}

// A program started as another user (su USER -c, runuser, setpriv --reuid) loads the
// profiler, which cannot reach the recorder's socket: the recording says so, not "no
// samples". The program sleeps for the recorder to look at it (a shorter one may be
// gone first: "unknown"). A shell forks the child that becomes nobody (`; true` keeps
// it from exec'ing it in its own process): the recorder may read the tree's root only
// after its next exec, and then takes that exec for its own of the command.
TEST(HeapCoverage, AProgramStartedAsAnotherUserSaysSo) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "only root can start a program as another user";
  }
  TempDir dir;
  std::string path = dir.file("other_user.canopy");
  auto recorded =
      run({kCanopy, "record", "--heap", "-o", path, "--", "/bin/sh", "-c", kChild + " as-nobody /bin/sleep 2; true"});
  ASSERT_EQ(recorded.exit_status, 0) << recorded.err;
  EXPECT_NE(recorded.err.find(" other user"), std::string::npos) << recorded.err;
  auto reader = open_recording(path);
  auto profile = reader.heap_profile();
  ASSERT_TRUE(profile) << profile.error().message;
  auto processes = reader.processes();
  ASSERT_TRUE(processes) << processes.error().message;
  std::map<std::string, std::string> reason_by_name;
  for (const store::HeapUnprofiledRow& row : profile->unprofiled) {
    for (const store::ProcessRow& process : *processes) {
      if (process.id == row.process_id) {
        reason_by_name[process.name] = row.reason;
      }
    }
  }
  EXPECT_EQ(reason_by_name["sleep"], "other user") << recorded.err;
  auto heap = run({kCanopy, "heap", path});
  EXPECT_NE(heap.out.find("  other user (1): it ran as another user (su USER -c, runuser, setpriv), who may not reach "
                          "the recorder's socket: record as that user\n"),
            std::string::npos)
      << heap.out;
}

}  // namespace
}  // namespace canopy::testing
