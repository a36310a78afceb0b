// How an ended process takes the kernel's exit record: its CPU whole (user and system
// from the record together, never each the larger of record and samples), the name
// after its last exec where canopy could not read it, and either order of record and end.
#include <gtest/gtest.h>

#include <optional>
#include <utility>
#include <vector>

#include "record/exit_records.h"
#include "store/reader.h"
#include "support/temp_dir.h"
#include "support/units.h"

namespace canopy::record {
namespace {

using canopy::testing::TempDir;

using testing::kNsPerMs;
constexpr pid_t kPid = 4242;
constexpr int64_t kStartMs = 1'000'000;

// A process sampled once before any clock tick was charged to it: the kernel then
// counts all of its runtime as user time (5 ms), as the samples did.
store::ProcessRow sampled_row(store::Writer& writer) {
  store::ProcessRow row;
  row.pid = kPid;
  row.start_ms = kStartMs;
  row.first_seen_ms = kStartMs;
  row.name = "cc1";
  row.exe = "/usr/lib/gcc/cc1";
  row.cmdline = {"cc1", "-quiet"};
  row.id = writer.add_process(row);
  row.end_ms = kStartMs + 20;
  row.cpu_user_ns = 5 * kNsPerMs;
  row.cpu_system_ns = 0;
  return row;
}

// Its record: 6 ms in all, one tick of it charged to system time.
probe::TaskExit record_of(pid_t tid, const std::string& name) {
  probe::TaskExit exit;
  exit.tid = tid;
  exit.tgid = kPid;
  exit.name = name;
  exit.peak_rss_bytes = 3 << 20;
  exit.cpu_user_ns = 2 * kNsPerMs;
  exit.cpu_system_ns = 4 * kNsPerMs;
  return exit;
}

store::ProcessRow written(const std::string& path, int64_t id) {
  auto reader = store::Reader::open(path);
  EXPECT_TRUE(reader) << reader.error().message;
  auto processes = reader->processes();
  EXPECT_TRUE(processes);
  return processes->at(static_cast<size_t>(id - 1));
}

// The processes the records said never exec'd, each with its parent's id.
class NeverExecdWatch final : public ProgramWatch {
 public:
  void on_program(int64_t, pid_t, probe::ProcessFiles*, uint64_t) override {}
  void on_fork(int64_t, pid_t, int64_t, uint64_t) override {}
  void on_exec_time(int64_t, uint64_t) override {}
  void on_never_execd(int64_t process_id, int64_t parent_id) override { told.emplace_back(process_id, parent_id); }
  std::vector<std::pair<int64_t, int64_t>> told;
};

// A recording with one process, sampled_row, and the exit records beside its writer.
class ExitRecordsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto writer = store::Writer::create(path_, false);
    ASSERT_TRUE(writer);
    writer_.emplace(std::move(*writer));
    records_.emplace(*writer_, &watch_);
    row_ = sampled_row(*writer_);
  }

  // The process as the finished recording holds it.
  store::ProcessRow stored_process() {
    EXPECT_TRUE(writer_->finish());
    return written(path_, row_.id);
  }

  // Found a zombie at its fork, it ends with its parent's identity at hand and a record
  // that says it never exec'd, before its end or after: its parent's executable and
  // arguments are its own.
  void end_a_fork_that_never_execd(bool record_first) {
    const ExitRecords::ForkIdentity parent{"/usr/bin/bash", {"bash", "./configure"}};
    row_.name = "bash";
    row_.exe.clear();
    row_.cmdline.clear();
    probe::TaskExit leader = record_of(kPid, "bash");
    leader.forked_without_exec = true;
    if (record_first) {
      records_->add(leader, kStartMs + 19);
    }
    records_->on_end(row_, kStartMs + 20, /*identity_unread=*/true, parent);
    writer_->update_process_end(row_);
    if (!record_first) {
      records_->add(leader, kStartMs + 21);
    }
    store::ProcessRow stored = stored_process();
    EXPECT_EQ(stored.name, "bash");
    EXPECT_FALSE(stored.named_from_exit_record);
    EXPECT_EQ(stored.exe, parent.exe);
    EXPECT_EQ(stored.cmdline, parent.cmdline);
  }

  TempDir dir_;
  std::string path_ = dir_.file("r.canopy");
  std::optional<store::Writer> writer_;
  NeverExecdWatch watch_;
  std::optional<ExitRecords> records_;
  store::ProcessRow row_;
};

TEST_F(ExitRecordsTest, TheLeadersRecordTellsAProcessThatNeverExecd) {
  row_.parent_id = 7;
  // Every thread but an exec'd leader carries the flag: a worker's says nothing.
  probe::TaskExit worker = record_of(kPid + 1, "cc1-worker");
  worker.forked_without_exec = true;
  records_->add(worker, kStartMs + 18);
  records_->on_end(row_, kStartMs + 20, /*identity_unread=*/false);
  EXPECT_TRUE(watch_.told.empty());
  probe::TaskExit leader = record_of(kPid, "cc1");
  leader.forked_without_exec = true;
  records_->add(leader, kStartMs + 21);
  EXPECT_EQ(watch_.told, (std::vector<std::pair<int64_t, int64_t>>{{row_.id, 7}}));
}

TEST_F(ExitRecordsTest, TheRecordsCpuReplacesTheSampledFiguresWhole) {
  records_->add(record_of(kPid, "cc1"), kStartMs + 19);
  records_->on_end(row_, kStartMs + 20, /*identity_unread=*/false);
  // Not user 5 ms (the samples') with system 4 ms (the record's): 9 ms it never ran.
  EXPECT_EQ(row_.cpu_user_ns, 2 * kNsPerMs);
  EXPECT_EQ(row_.cpu_system_ns, 4 * kNsPerMs);
  EXPECT_EQ(row_.hwm_bytes, 3 << 20);
  EXPECT_EQ(records_->applied(), 1);
}

TEST_F(ExitRecordsTest, ALateRecordReplacesTheSampledFiguresWhole) {
  records_->on_end(row_, kStartMs + 20, /*identity_unread=*/false);
  writer_->update_process_end(row_);
  records_->add(record_of(kPid, "cc1"), kStartMs + 21);
  store::ProcessRow stored = stored_process();
  EXPECT_EQ(stored.cpu_user_ns, 2 * kNsPerMs);
  EXPECT_EQ(stored.cpu_system_ns, 4 * kNsPerMs);
  EXPECT_EQ(records_->applied(), 1);
}

TEST_F(ExitRecordsTest, AThreadsRecordAddsItsCpuButNotItsName) {
  // A worker thread ends first, under a name of its own.
  records_->add(record_of(kPid + 1, "cc1-worker"), kStartMs + 18);
  records_->on_end(row_, kStartMs + 20, /*identity_unread=*/false);
  EXPECT_EQ(row_.name, "cc1");
  writer_->update_process_end(row_);
  records_->add(record_of(kPid, "cc1"), kStartMs + 21);
  store::ProcessRow stored = stored_process();
  EXPECT_EQ(stored.name, "cc1");
  EXPECT_EQ(stored.cmdline, (std::vector<std::string>{"cc1", "-quiet"}));
  EXPECT_FALSE(stored.named_from_exit_record);
  EXPECT_EQ(stored.cpu_user_ns, 4 * kNsPerMs);
  EXPECT_EQ(stored.cpu_system_ns, 8 * kNsPerMs);
}

TEST_F(ExitRecordsTest, TheThreadGroupsTotalCountsThreadsWhoseRecordsAreGone) {
  // Its last thread's record carries the whole group's runtime: 30 ms, where this
  // record alone has 6 (threads that ended long before are no longer kept).
  probe::TaskExit last = record_of(kPid, "cc1");
  last.group_cpu_ns = 30 * kNsPerMs;
  records_->add(last, kStartMs + 19);
  records_->on_end(row_, kStartMs + 20, /*identity_unread=*/false);
  EXPECT_EQ(row_.cpu_user_ns, 10 * kNsPerMs);  // in the ratio of the records at hand, 1:2
  EXPECT_EQ(row_.cpu_system_ns, 20 * kNsPerMs);
  EXPECT_EQ(records_->cpu_added_ns(), 25 * kNsPerMs);  // beyond the samples' 5 ms
}

TEST_F(ExitRecordsTest, WhereTheKernelCountsTicksAloneTheLargerWholeStays) {
  probe::TaskExit ticks = record_of(kPid, "cc1");
  ticks.cpu_from_ticks = true;  // no delay accounting: no tick landed, nothing counted
  ticks.cpu_user_ns = 0;
  ticks.cpu_system_ns = 0;
  records_->add(ticks, kStartMs + 19);
  records_->on_end(row_, kStartMs + 20, /*identity_unread=*/false);
  EXPECT_EQ(row_.cpu_user_ns, 5 * kNsPerMs);
  EXPECT_EQ(row_.cpu_system_ns, 0);
}

TEST_F(ExitRecordsTest, AProcessGoneBeforeItsOwnIdentityWasReadIsNamedByItsRecord) {
  // Copied from its parent at the fork; it exec'd true and ended before canopy read it.
  row_.name = "sh";
  row_.exe.clear();
  row_.cmdline.clear();
  // No AFORK in its record: its parent's identity, at hand, is not its own.
  records_->add(record_of(kPid, "true"), kStartMs + 19);
  records_->on_end(row_, kStartMs + 20, /*identity_unread=*/true, ExitRecords::ForkIdentity{"/bin/sh", {"sh"}});
  writer_->update_process_end(row_);
  store::ProcessRow stored = stored_process();
  EXPECT_EQ(stored.name, "true");
  EXPECT_TRUE(stored.named_from_exit_record);
  EXPECT_TRUE(stored.exe.empty());
  EXPECT_TRUE(stored.cmdline.empty());
}

TEST_F(ExitRecordsTest, AForkThatNeverExecdTakesItsParentsIdentityFromAnEarlyRecord) {
  end_a_fork_that_never_execd(/*record_first=*/true);
}

TEST_F(ExitRecordsTest, AForkThatNeverExecdTakesItsParentsIdentityFromALateRecord) {
  end_a_fork_that_never_execd(/*record_first=*/false);
}

TEST_F(ExitRecordsTest, ANameReadFromTheProcessItselfStays) {
  records_->add(record_of(kPid, "cc1"), kStartMs + 19);
  records_->on_end(row_, kStartMs + 20, /*identity_unread=*/false);
  writer_->update_process_end(row_);
  store::ProcessRow stored = stored_process();
  EXPECT_EQ(stored.name, "cc1");
  EXPECT_FALSE(stored.named_from_exit_record);
  EXPECT_EQ(stored.exe, "/usr/lib/gcc/cc1");
  EXPECT_EQ(stored.cmdline, (std::vector<std::string>{"cc1", "-quiet"}));
}

TEST_F(ExitRecordsTest, AnExecNoEventToldOfRenamesTheProcessAndDropsTheOldImagesIdentity) {
  // Polling: read as cc1, it exec'd as before its end and no tick saw that.
  records_->on_end(row_, kStartMs + 20, /*identity_unread=*/false);
  writer_->update_process_end(row_);
  records_->add(record_of(kPid, "as"), kStartMs + 21);
  store::ProcessRow stored = stored_process();
  EXPECT_EQ(stored.name, "as");
  EXPECT_TRUE(stored.named_from_exit_record);
  EXPECT_TRUE(stored.exe.empty());
  EXPECT_TRUE(stored.cmdline.empty());
}

}  // namespace
}  // namespace canopy::record
