// A process that runs in another's address space (a child between vfork and exec, a
// clone made with CLONE_VM) shows that process's memory in its own /proc files. It is
// none of its own: its rows must not count it, nor the tree's sums count it twice.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

constexpr int64_t kLentMib = 64;
constexpr int64_t kMib = 1 << 20;

// The PID in the workload's line "lent KIND PID".
pid_t lent_pid(Started& canopy, const std::string& kind) {
  std::string prefix = "lent " + kind + " ";
  if (!canopy.wait_for_output(prefix)) {
    ADD_FAILURE() << "the workload never said '" << prefix << "': " << canopy.output();
    return 0;
  }
  const std::string& out = canopy.output();
  return static_cast<pid_t>(std::stol(out.substr(out.find(prefix) + prefix.size())));
}

std::optional<store::ProcessRow> row_of_pid(const std::vector<store::ProcessRow>& processes, pid_t pid) {
  for (const store::ProcessRow& process : processes) {
    if (process.pid == pid) {
      return process;
    }
  }
  return std::nullopt;
}

// Until the recording has a sample of `pid`'s, taken while it runs in the lender's
// address space (it waits for the test's word to go on).
void wait_for_a_sample_of(const std::string& path, pid_t pid) {
  EXPECT_TRUE(wait_for_recording(path, [&](const store::Reader& live) {
    auto processes = live.processes();
    auto row = processes ? row_of_pid(*processes, pid) : std::nullopt;
    if (!row) {
      return false;
    }
    bool sampled = false;
    auto status = live.for_each_sample([&](int64_t, int64_t id, const store::SampleValues&) {
      sampled = sampled || id == row->id;
    });
    return status && sampled;
  })) << "pid " << pid << " was never sampled";
}

TEST(BorrowedMemory, AProcessInItsParentsAddressSpaceHasNoneOfItsMemory) {
  TempDir dir;
  std::string path = dir.file("borrow.db");
  std::string go = dir.file("go");
  std::filesystem::create_directory(go);
  Started canopy({kCanopy, "record", "-q", "-o", path, "--", kWorkload, "borrow", std::to_string(kLentMib), go});
  pid_t clone_pid = lent_pid(canopy, "clone");
  wait_for_a_sample_of(path, clone_pid);
  std::ofstream(go + "/clone").put('\n');
  pid_t vfork_pid = lent_pid(canopy, "vfork");
  wait_for_a_sample_of(path, vfork_pid);
  std::ofstream(go + "/vfork").put('\n');
  Finished finished = canopy.wait();
  ASSERT_EQ(finished.exit_status, 0) << finished.err;

  auto reader = open_recording(path);
  auto processes = reader.processes();
  ASSERT_TRUE(processes) << processes.error().message;
  ASSERT_EQ(processes->size(), 3u);
  const store::ProcessRow& lender = (*processes)[0];
  EXPECT_GE(lender.peak_rss_bytes.value_or(0), kLentMib * kMib);
  // Neither borrower's peak is the lender's: the clone never had memory of its own
  // (nor does the kernel's exit record of it, which gives the lender's peak, count),
  // the vfork child only its `exit 0`'s.
  for (pid_t pid : {clone_pid, vfork_pid}) {
    auto row = row_of_pid(*processes, pid);
    ASSERT_TRUE(row) << "pid " << pid;
    EXPECT_LT(row->peak_rss_bytes.value_or(0), kLentMib * kMib / 4) << "pid " << pid;
    EXPECT_LT(row->hwm_bytes.value_or(0), kLentMib * kMib / 4) << "pid " << pid;
  }
  // The tree's sum never counts the lent memory twice.
  auto ticks = reader.ticks();
  ASSERT_TRUE(ticks) << ticks.error().message;
  int64_t highest = 0;
  for (const store::TickRow& tick : *ticks) {
    highest = std::max(highest, tick.rss_bytes);
  }
  EXPECT_GE(highest, kLentMib * kMib);
  EXPECT_LT(highest, kLentMib * kMib * 3 / 2);
}

// The vfork child is read in its parent's address space, then execs a program that
// touches its own memory and ends before the next tick (2 s away): its peak is its
// kernel exit record's, of its own address space, which must count.
TEST(BorrowedMemory, AChildThatExecsAndEndsBetweenTicksHasItsOwnPeak) {
  constexpr int64_t kOwnMib = 48;
  TempDir dir;
  std::string path = dir.file("borrow-exec.db");
  std::string go = dir.file("go");
  std::filesystem::create_directory(go);
  Started canopy({kCanopy, "record", "-q", "-i", "2000", "-o", path, "--", kWorkload, "borrow", "16", go,
                  std::to_string(kOwnMib)});
  std::ofstream(go + "/clone").put('\n');
  pid_t vfork_pid = lent_pid(canopy, "vfork");
  wait_for_a_sample_of(path, vfork_pid);
  std::ofstream(go + "/vfork").put('\n');
  Finished finished = canopy.wait();
  ASSERT_EQ(finished.exit_status, 0) << finished.err;

  auto reader = open_recording(path);
  if (reader.meta().exit_records != "taskstats") {
    GTEST_SKIP() << "no kernel exit records (taskstats needs root): the peak between ticks is unknown";
  }
  auto processes = reader.processes();
  ASSERT_TRUE(processes) << processes.error().message;
  auto row = row_of_pid(*processes, vfork_pid);
  ASSERT_TRUE(row);
  EXPECT_GE(std::max(row->peak_rss_bytes.value_or(0), row->hwm_bytes.value_or(0)), kOwnMib * kMib);
}

}  // namespace
}  // namespace canopy::testing
