// How an ended process takes the kernel's exit record: its CPU whole (user and system
// from the record together, never each the larger of record and samples), the name
// after its last exec where canopy could not read it, and either order of record and end.
#include <gtest/gtest.h>

#include "record/exit_records.h"
#include "store/reader.h"
#include "support/temp_dir.h"

namespace canopy::record {
namespace {

using canopy::testing::TempDir;

constexpr int64_t kMs = 1'000'000;
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
  row.cpu_user_ns = 5 * kMs;
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
  exit.cpu_user_ns = 2 * kMs;
  exit.cpu_system_ns = 4 * kMs;
  return exit;
}

store::ProcessRow written(const std::string& path, int64_t id) {
  auto reader = store::Reader::open(path);
  EXPECT_TRUE(reader) << reader.error().message;
  auto processes = reader->processes();
  EXPECT_TRUE(processes);
  return processes->at(static_cast<size_t>(id - 1));
}

TEST(ExitRecords, TheRecordsCpuReplacesTheSampledFiguresWhole) {
  TempDir dir;
  auto writer = store::Writer::create(dir.file("r.canopy"), false);
  ASSERT_TRUE(writer);
  ExitRecords records(*writer);
  store::ProcessRow row = sampled_row(*writer);
  records.add(record_of(kPid, "cc1"), kStartMs + 19);
  records.on_end(row, kStartMs + 20, /*identity_unread=*/false);
  // Not user 5 ms (the samples') with system 4 ms (the record's): 9 ms it never ran.
  EXPECT_EQ(row.cpu_user_ns, 2 * kMs);
  EXPECT_EQ(row.cpu_system_ns, 4 * kMs);
  EXPECT_EQ(row.hwm_bytes, 3 << 20);
  EXPECT_EQ(records.applied(), 1);
}

TEST(ExitRecords, ALateRecordReplacesTheSampledFiguresWhole) {
  TempDir dir;
  std::string path = dir.file("r.canopy");
  auto writer = store::Writer::create(path, false);
  ASSERT_TRUE(writer);
  ExitRecords records(*writer);
  store::ProcessRow row = sampled_row(*writer);
  records.on_end(row, kStartMs + 20, /*identity_unread=*/false);
  writer->update_process_end(row);
  records.add(record_of(kPid, "cc1"), kStartMs + 21);
  ASSERT_TRUE(writer->finish());
  store::ProcessRow stored = written(path, row.id);
  EXPECT_EQ(stored.cpu_user_ns, 2 * kMs);
  EXPECT_EQ(stored.cpu_system_ns, 4 * kMs);
  EXPECT_EQ(records.applied(), 1);
}

TEST(ExitRecords, AThreadsRecordAddsItsCpuButNotItsName) {
  TempDir dir;
  std::string path = dir.file("r.canopy");
  auto writer = store::Writer::create(path, false);
  ASSERT_TRUE(writer);
  ExitRecords records(*writer);
  store::ProcessRow row = sampled_row(*writer);
  // A worker thread ends first, under a name of its own.
  records.add(record_of(kPid + 1, "cc1-worker"), kStartMs + 18);
  records.on_end(row, kStartMs + 20, /*identity_unread=*/false);
  EXPECT_EQ(row.name, "cc1");
  writer->update_process_end(row);
  records.add(record_of(kPid, "cc1"), kStartMs + 21);
  ASSERT_TRUE(writer->finish());
  store::ProcessRow stored = written(path, row.id);
  EXPECT_EQ(stored.name, "cc1");
  EXPECT_EQ(stored.cmdline, (std::vector<std::string>{"cc1", "-quiet"}));
  EXPECT_FALSE(stored.named_from_exit_record);
  EXPECT_EQ(stored.cpu_user_ns, 4 * kMs);
  EXPECT_EQ(stored.cpu_system_ns, 8 * kMs);
}

TEST(ExitRecords, TheThreadGroupsTotalCountsThreadsWhoseRecordsAreGone) {
  TempDir dir;
  auto writer = store::Writer::create(dir.file("r.canopy"), false);
  ASSERT_TRUE(writer);
  ExitRecords records(*writer);
  store::ProcessRow row = sampled_row(*writer);
  // Its last thread's record carries the whole group's runtime: 30 ms, where this
  // record alone has 6 (threads that ended long before are no longer kept).
  probe::TaskExit last = record_of(kPid, "cc1");
  last.group_cpu_ns = 30 * kMs;
  records.add(last, kStartMs + 19);
  records.on_end(row, kStartMs + 20, /*identity_unread=*/false);
  EXPECT_EQ(row.cpu_user_ns, 10 * kMs);  // in the ratio of the records at hand, 1:2
  EXPECT_EQ(row.cpu_system_ns, 20 * kMs);
  EXPECT_EQ(records.cpu_added_ns(), 25 * kMs);  // beyond the samples' 5 ms
}

TEST(ExitRecords, WhereTheKernelCountsTicksAloneTheLargerWholeStays) {
  TempDir dir;
  auto writer = store::Writer::create(dir.file("r.canopy"), false);
  ASSERT_TRUE(writer);
  ExitRecords records(*writer);
  store::ProcessRow row = sampled_row(*writer);
  probe::TaskExit ticks = record_of(kPid, "cc1");
  ticks.cpu_from_ticks = true;  // no delay accounting: no tick landed, nothing counted
  ticks.cpu_user_ns = 0;
  ticks.cpu_system_ns = 0;
  records.add(ticks, kStartMs + 19);
  records.on_end(row, kStartMs + 20, /*identity_unread=*/false);
  EXPECT_EQ(row.cpu_user_ns, 5 * kMs);
  EXPECT_EQ(row.cpu_system_ns, 0);
}

TEST(ExitRecords, AProcessGoneBeforeItsOwnIdentityWasReadIsNamedByItsRecord) {
  TempDir dir;
  std::string path = dir.file("r.canopy");
  auto writer = store::Writer::create(path, false);
  ASSERT_TRUE(writer);
  ExitRecords records(*writer);
  // Copied from its parent at the fork; it exec'd true and ended before canopy read it.
  store::ProcessRow row = sampled_row(*writer);
  row.name = "sh";
  row.exe.clear();
  row.cmdline.clear();
  records.add(record_of(kPid, "true"), kStartMs + 19);
  records.on_end(row, kStartMs + 20, /*identity_unread=*/true);
  writer->update_process_end(row);
  ASSERT_TRUE(writer->finish());
  store::ProcessRow stored = written(path, row.id);
  EXPECT_EQ(stored.name, "true");
  EXPECT_TRUE(stored.named_from_exit_record);
  EXPECT_TRUE(stored.exe.empty());
  EXPECT_TRUE(stored.cmdline.empty());
}

TEST(ExitRecords, ANameReadFromTheProcessItselfStays) {
  TempDir dir;
  std::string path = dir.file("r.canopy");
  auto writer = store::Writer::create(path, false);
  ASSERT_TRUE(writer);
  ExitRecords records(*writer);
  store::ProcessRow row = sampled_row(*writer);
  records.add(record_of(kPid, "cc1"), kStartMs + 19);
  records.on_end(row, kStartMs + 20, /*identity_unread=*/false);
  writer->update_process_end(row);
  ASSERT_TRUE(writer->finish());
  store::ProcessRow stored = written(path, row.id);
  EXPECT_EQ(stored.name, "cc1");
  EXPECT_FALSE(stored.named_from_exit_record);
  EXPECT_EQ(stored.exe, "/usr/lib/gcc/cc1");
  EXPECT_EQ(stored.cmdline, (std::vector<std::string>{"cc1", "-quiet"}));
}

TEST(ExitRecords, AnExecNoEventToldOfRenamesTheProcessAndDropsTheOldImagesIdentity) {
  // Polling: read as cc1, it exec'd as before its end and no tick saw that.
  TempDir dir;
  std::string path = dir.file("r.canopy");
  auto writer = store::Writer::create(path, false);
  ASSERT_TRUE(writer);
  ExitRecords records(*writer);
  store::ProcessRow row = sampled_row(*writer);
  records.on_end(row, kStartMs + 20, /*identity_unread=*/false);
  writer->update_process_end(row);
  records.add(record_of(kPid, "as"), kStartMs + 21);
  ASSERT_TRUE(writer->finish());
  store::ProcessRow stored = written(path, row.id);
  EXPECT_EQ(stored.name, "as");
  EXPECT_TRUE(stored.named_from_exit_record);
  EXPECT_TRUE(stored.exe.empty());
  EXPECT_TRUE(stored.cmdline.empty());
}

}  // namespace
}  // namespace canopy::record
