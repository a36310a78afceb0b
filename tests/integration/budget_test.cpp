// Budgets for CI: `canopy record --max-peak/--max-cpu` and `canopy report --max-peak`
// on real trees whose memory and CPU the workload knows. Over a budget exits 123 and
// names the process that pushed the tree over; the command's own failure still wins.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

constexpr int kOverBudget = 123;

// The recorded process holding `mib` MiB (`canopy_workload hold MIB ...`).
store::ProcessRow holder(const std::string& path, int mib) {
  auto processes = open_recording(path).processes();
  EXPECT_TRUE(processes);
  for (const auto& p : *processes) {
    if (p.cmdline.size() >= 3 && p.cmdline[1] == "hold" && p.cmdline[2] == std::to_string(mib)) {
      return p;
    }
  }
  ADD_FAILURE() << "no process holds " << mib << " MiB";
  return {};
}

// Two children of 40 and 150 MiB, the larger one starting after the smaller.
std::vector<std::string> two_holders(const std::string& path, const std::vector<std::string>& flags,
                                     const std::string& then = "") {
  std::vector<std::string> argv{kCanopy, "record", "-o", path};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"--", "sh", "-c",
                           kWorkload + " hold 40 900 & sleep 0.3; " + kWorkload + " hold 150 600; wait" + then});
  return argv;
}

TEST(Budget, OverThePeakExits123AndNamesTheProcessThatPushedItOver) {
  TempDir dir;
  std::string path = dir.file("over.canopy");
  auto result = run(two_holders(path, {"--max-peak", "120M"}));
  EXPECT_EQ(result.exit_status, kOverBudget) << result.err;
  auto pusher = holder(path, 150);
  // 40 MiB plus the shells fit in 120 MiB; the tree goes over when the 150 MiB child
  // touches its memory, and that child is named with its growth at that tick.
  EXPECT_NE(result.err.find("canopy: over budget: peak memory "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("> --max-peak 120M (120.0 MiB) at +"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("when canopy_workload hold 150 600 (pid " + std::to_string(pusher.pid) + ") grew by "),
            std::string::npos)
      << result.err;

  auto json = nlohmann::json::parse(run({kCanopy, "report", "--json", "--max-peak", "120M", path}).out);
  ASSERT_EQ(json["budgets"].size(), 1u);
  const auto& verdict = json["budgets"][0];
  EXPECT_TRUE(verdict["over"].get<bool>());
  EXPECT_EQ(verdict["limit"].get<int64_t>(), mib(120));
  EXPECT_EQ(verdict["used"].get<int64_t>(), json["peak_tree_rss_bytes"].get<int64_t>());
  EXPECT_EQ(verdict["culprit"]["pid"].get<int64_t>(), pusher.pid);
  EXPECT_EQ(verdict["culprit"]["name"].get<std::string>(), "canopy_workload");
  EXPECT_EQ(verdict["culprit"]["cmdline"], pusher.cmdline);
  // How much of its 150 MiB it touched within that one tick is the machine's
  // page-fault speed, not canopy's promise: only that it grew, and no more than it has.
  int64_t growth_bytes = verdict["culprit"]["growth_bytes"].get<int64_t>();
  EXPECT_GT(growth_bytes, 0);
  EXPECT_LE(growth_bytes, verdict["culprit"]["value"].get<int64_t>());
  EXPECT_GE(verdict["culprit"]["value"].get<int64_t>(), mib(150));
}

TEST(Budget, UnderThePeakExitsWithTheCommandsStatus) {
  TempDir dir;
  std::string path = dir.file("under.canopy");
  auto result = run(two_holders(path, {"--max-peak", "2G", "--max-cpu", "10m"}));
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.err.find("canopy: within budget: peak memory "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(" of --max-peak 2G (2.0 GiB)"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("canopy: within budget: CPU "), std::string::npos) << result.err;

  auto report = run({kCanopy, "report", "--max-peak", "2G", path});
  EXPECT_EQ(report.exit_status, 0) << report.err;
  report = run({kCanopy, "report", "--max-peak", "100M", path});
  EXPECT_EQ(report.exit_status, kOverBudget) << report.err;
  EXPECT_NE(report.err.find("canopy: over budget: peak memory "), std::string::npos) << report.err;
}

TEST(Budget, TheCommandsOwnFailureWins) {
  TempDir dir;
  std::string path = dir.file("failed.canopy");
  auto result = run(two_holders(path, {"--max-peak", "120M"}, "; exit 3"));
  EXPECT_EQ(result.exit_status, 3) << result.err;
  // Still said, for the log.
  EXPECT_NE(result.err.find("canopy: over budget: peak memory "), std::string::npos) << result.err;
}

TEST(Budget, PerCommandPeakHoldsEachProcessOfThatName) {
  TempDir dir;
  std::string path = dir.file("per-command.canopy");
  auto result = run(two_holders(path, {"--max-peak", "canopy_workload=100M", "--max-peak", "sh=100M"}));
  EXPECT_EQ(result.exit_status, kOverBudget) << result.err;
  auto big = holder(path, 150);
  EXPECT_NE(result.err.find("canopy: over budget: canopy_workload peak memory "), std::string::npos) << result.err;
  // Named as the summary names it: which canopy_workload, by its arguments.
  EXPECT_NE(result.err.find("> --max-peak canopy_workload=100M (100.0 MiB), by canopy_workload hold 150 600 (pid " +
                            std::to_string(big.pid) + "); 1 of 2 canopy_workload over"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("canopy: within budget: sh peak memory "), std::string::npos) << result.err;

  auto unused = run({kCanopy, "report", "--max-peak", "cc1plus=1G", path});
  EXPECT_EQ(unused.exit_status, 0) << unused.err;
  EXPECT_NE(unused.err.find("canopy: budget unused: no process named cc1plus ran (--max-peak cc1plus=1G)"),
            std::string::npos)
      << unused.err;
}

TEST(Budget, CpuTimeOfTheTreeAndPerCommand) {
  // One second of CPU, then half a second asleep.
  TempDir dir;
  std::string path = dir.file("cpu.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--max-cpu", "300ms", "--", "sh", "-c",
                     kWorkload + " spin 1000; sleep 0.5"});
  EXPECT_EQ(result.exit_status, kOverBudget) << result.err;
  EXPECT_NE(result.err.find("canopy: over budget: CPU "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("> --max-cpu 300ms (0.300 s)"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("; the most: canopy_workload spin 1000 (pid "), std::string::npos) << result.err;

  auto json = nlohmann::json::parse(run({kCanopy, "report", "--json", "--max-cpu", "canopy_workload=5s", path}).out);
  const auto& verdict = json["budgets"][0];
  EXPECT_FALSE(verdict["over"].get<bool>());
  EXPECT_EQ(verdict["limit"].get<int64_t>(), 5'000'000'000);
  // The workload spins until its own CPU clock reads one second, however loaded the
  // machine: the kernel's figure is at least that, plus its start-up.
  EXPECT_GE(verdict["used"].get<int64_t>(), 1'000'000'000);
  EXPECT_LE(verdict["used"].get<int64_t>(), 1'100'000'000);
}

TEST(Budget, TheCommandStillStartsAtItsNameAfterBudgetFlags) {
  // One value per flag: `--max-peak 2G sh -c ...` leaves `sh` and what follows to the
  // command, as `canopy record make -j8` does without budgets.
  TempDir dir;
  std::string path = dir.file("no-dashes.canopy");
  auto result = run({kCanopy, "record", "-q", "-o", path, "--max-peak", "2G", "--max-cpu", "sh=1m", "sh", "-c", "exit 0"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(open_recording(path).meta().command, (std::vector<std::string>{"sh", "-c", "exit 0"}));
}

TEST(Budget, BadBudgetsGetOneLineAndRunNothing) {
  TempDir dir;
  std::string path = dir.file("never.canopy");
  for (const auto& [flag, value, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"--max-peak", "lots", "canopy: --max-peak 'lots': 'lots' is not a size such as 2G or 512M\n"},
           {"--max-peak", "=1G", "canopy: --max-peak '=1G': no command name before '='\n"},
           {"--max-cpu", "10", "canopy: --max-cpu '10': '10' is not a duration such as 10m, 90s or 500ms\n"},
           {"--max-cpu", "cc1plus=-1s",
            "canopy: --max-cpu 'cc1plus=-1s': '-1s' must be at least 1ms\n"},
           {"--max-cpu", "9999999999999s", "canopy: --max-cpu '9999999999999s': '9999999999999s' is too large\n"},
           {"--max-peak", "0", "canopy: --max-peak '0': '0' must be at least 1\n"},
       }) {
    auto result = run({kCanopy, "record", "-o", path, flag, value, "--", "true"});
    EXPECT_EQ(result.exit_status, 125) << flag << " " << value;
    EXPECT_EQ(result.err, message);
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  auto report = run({kCanopy, "report", "--max-peak", "lots", path});
  EXPECT_EQ(report.exit_status, 2);
  EXPECT_EQ(report.err, "canopy: --max-peak 'lots': 'lots' is not a size such as 2G or 512M\n");
}

}  // namespace
}  // namespace canopy::testing
