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

constexpr int64_t kMib = 1 << 20;

std::optional<store::ProcessRow> row_of_pid(const std::vector<store::ProcessRow>& processes, pid_t pid) {
  for (const store::ProcessRow& process : processes) {
    if (process.pid == pid) {
      return process;
    }
  }
  return std::nullopt;
}

// `canopy_workload borrow` under record: a lender whose borrowers each wait for the
// test's word to go on.
class Lender {
 public:
  // `borrow`: the workload's MIB [EXEC_MIB].
  Lender(const TempDir& dir, const std::vector<std::string>& record_flags, const std::vector<std::string>& borrow)
      : path(dir.file("borrow.db")), go_(dir.file("go")) {
    std::filesystem::create_directory(go_);
    std::vector<std::string> argv = {kCanopy, "record", "-q", "-o", path};
    argv.insert(argv.end(), record_flags.begin(), record_flags.end());
    argv.insert(argv.end(), {"--", kWorkload, "borrow", go_});
    argv.insert(argv.end(), borrow.begin(), borrow.end());
    canopy_.emplace(argv);
  }

  // The KIND borrower's PID, once the recording has a sample of it taken while it ran
  // in the lender's address space; then it goes on.
  pid_t once_sampled_let_go(const std::string& kind) {
    pid_t pid = pid_in_output(*canopy_, "lent " + kind + " ");
    EXPECT_TRUE(wait_for_recording(path, [&](const store::Reader& live) {
      auto processes = live.processes();
      auto row = processes ? row_of_pid(*processes, pid) : std::nullopt;
      bool sampled = false;
      auto status = live.for_each_sample([&](int64_t, int64_t id, const store::SampleValues&) {
        sampled = sampled || (row && id == row->id);
      });
      return status && sampled;
    })) << "the " << kind << " borrower (pid " << pid << ") was never sampled";
    let_go(kind);
    return pid;
  }
  void let_go(const std::string& kind) { std::ofstream(go_ + "/" + kind).put('\n'); }
  Finished wait() { return canopy_->wait(); }

  const std::string path;

 private:
  const std::string go_;
  std::optional<Started> canopy_;
};

TEST(BorrowedMemory, AProcessInItsParentsAddressSpaceHasNoneOfItsMemory) {
  constexpr int64_t kLentMib = 64;
  TempDir dir;
  Lender lender(dir, {}, {std::to_string(kLentMib)});
  pid_t clone_pid = lender.once_sampled_let_go("clone");
  pid_t vfork_pid = lender.once_sampled_let_go("vfork");
  Finished finished = lender.wait();
  ASSERT_EQ(finished.exit_status, 0) << finished.err;

  auto reader = open_recording(lender.path);
  auto processes = reader.processes();
  ASSERT_TRUE(processes) << processes.error().message;
  ASSERT_EQ(processes->size(), 3u);
  EXPECT_GE((*processes)[0].peak_rss_bytes.value_or(0), kLentMib * kMib);
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
  Lender lender(dir, {"-i", "2000"}, {"16", std::to_string(kOwnMib)});
  lender.let_go("clone");
  pid_t vfork_pid = lender.once_sampled_let_go("vfork");
  Finished finished = lender.wait();
  ASSERT_EQ(finished.exit_status, 0) << finished.err;

  auto reader = open_recording(lender.path);
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
