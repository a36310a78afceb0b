// The heap profile's tables on real SQLite files: every row the writer is given is
// read back as it was, with the updates made after its commit; a recording without
// --heap has no heap tables and stays format 2; a value the file cannot hold is
// refused in one line naming the file.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <sstream>

#include "store/heap_row_fields.h"
#include "store/reader.h"
#include "store/writer.h"
#include "support/temp_dir.h"

namespace canopy::store {
namespace {

using canopy::testing::TempDir;

constexpr int64_t kStartMs = 1'700'000'000'000;
constexpr int64_t kEndMs = kStartMs + 5000;

// The text of the first column of the first row of `sql`, or "error: ...".
std::string first_cell_text(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  ScopedDb owned(db);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    return std::string("error: ") + sqlite3_errmsg(db);
  }
  ScopedStmt owned_stmt(stmt);
  if (sqlite3_step(stmt) != SQLITE_ROW) {
    return "no row";
  }
  const unsigned char* text = sqlite3_column_text(stmt, 0);
  return text ? reinterpret_cast<const char*>(text) : "NULL";
}

std::string value_text(int64_t value) { return std::to_string(value); }
std::string value_text(const std::optional<int64_t>& value) { return value ? std::to_string(*value) : "NULL"; }
std::string value_text(double value) {
  std::ostringstream text;
  text.precision(17);  // every bit: a probability must come back exactly
  text << value;
  return text.str();
}
std::string value_text(const std::string& value) { return "'" + value + "'"; }
std::string value_text(const std::optional<std::string>& value) { return value ? value_text(*value) : "NULL"; }
std::string value_text(const std::vector<int64_t>& ids) {
  std::string text = "[";
  for (int64_t id : ids) {
    text += (text.size() > 1 ? " " : "") + std::to_string(id);
  }
  return text + "]";
}

// "id=1 path='/usr/bin/app' build_id='ab12'": every column of a row, so that a
// difference shows which.
template <typename Row>
std::vector<std::string> rows_text(const std::vector<Row>& rows) {
  std::vector<std::string> lines;
  for (const Row& row : rows) {
    std::string line;
    const Table& table = RowFields<Row>::kTable;
    for (size_t c = 0; c < table.columns.size(); ++c) {
      RowFields<Row>::visit(static_cast<typename RowFields<Row>::Index>(c), [&](auto member) {
        line += std::string(c == 0 ? "" : " ") + table.columns[c].name + "=" + value_text(row.*member);
      });
    }
    lines.push_back(line);
  }
  return lines;
}

HeapProfile read_profile(const std::string& path) {
  auto reader = Reader::open(path);
  EXPECT_TRUE(reader) << reader.error().message;
  if (!reader) {
    return {};
  }
  auto profile = reader->heap_profile();
  EXPECT_TRUE(profile) << profile.error().message;
  return profile ? *profile : HeapProfile{};
}

// A recording of two images of two processes, every heap table with rows, updates
// made both before and after the rows they update are committed. What it wrote, as
// the reader must give it back.
struct HeapRecording {
  std::string path;
  HeapProfile expected;
};

HeapRecording record_two_images(const TempDir& dir) {
  HeapRecording recording{dir.file("heap.canopy"), {}};
  HeapProfile& expected = recording.expected;
  auto writer = Writer::create(recording.path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  writer->set_meta({.start_ms = kStartMs});
  ProcessRow process;
  process.pid = 100;
  process.name = "app";
  process.first_seen_ms = kStartMs;
  EXPECT_EQ(writer->add_process(process), 1);
  process.pid = 101;
  EXPECT_EQ(writer->add_process(process), 2);
  EXPECT_TRUE(writer->enable_heap());

  // Before the first commit: ids given at once, so rows name rows not yet written.
  HeapImageRow parent{.process_id = 1, .pid = 100, .started_ms = kStartMs + 5, .rate_bytes = 524288, .unwind = "auto"};
  HeapImageRow child{.pid = 101, .started_ms = kStartMs + 50, .rate_bytes = 4096, .unwind = "dwarf"};
  parent.id = writer->add_heap_image(parent);
  child.id = writer->add_heap_image(child);
  EXPECT_EQ(parent.id, 1);
  EXPECT_EQ(child.id, 2);
  expected.modules = {{.path = "/usr/bin/app", .build_id = "ab12cd34"},
                      {.path = "/lib/x86_64-linux-gnu/libc.so.6", .build_id = ""}};
  expected.frames = {{.module_id = 1, .rel_pc = 0x1234},
                     {.module_id = 2, .rel_pc = 0x29dc0},
                     {.module_id = std::nullopt, .rel_pc = 0x7fff12345678}};
  expected.stacks = {{.frame_ids = {1, 2}}, {.frame_ids = {3, 1, 2}}, {.frame_ids = {}}};
  for (size_t i = 0; i < expected.modules.size(); ++i) {
    expected.modules[i].id = writer->add_heap_module(expected.modules[i]);
    EXPECT_EQ(expected.modules[i].id, static_cast<int64_t>(i) + 1);
  }
  for (size_t i = 0; i < expected.frames.size(); ++i) {
    expected.frames[i].id = writer->add_heap_frame(expected.frames[i]);
    EXPECT_EQ(expected.frames[i].id, static_cast<int64_t>(i) + 1);
  }
  for (size_t i = 0; i < expected.stacks.size(); ++i) {
    expected.stacks[i].id = writer->add_heap_stack(expected.stacks[i]);
    EXPECT_EQ(expected.stacks[i].id, static_cast<int64_t>(i) + 1);
  }
  HeapSnapshotRow first{.image_id = 1,
                        .t_ms = kStartMs + 100,
                        .reason = "interval",
                        .in_use_bytes = 1 << 20,
                        .peak_in_use_bytes = 1 << 21,
                        .samples = 10};
  first.id = writer->add_heap_snapshot(first);
  EXPECT_EQ(first.id, 1);
  std::vector<HeapStackTotalsRow> totals = {{1, 1, 3 << 20, 30, 2 << 20, 20}, {1, 2, 1 << 20, 1, 0, 0}};
  for (const auto& row : totals) {
    writer->add_heap_stack_totals(row);
  }
  HeapAllocationRow small{
      .image_id = 1, .stack_id = 1, .size_bytes = 65536, .probability = 0.125, .born_ms = kStartMs + 90};
  HeapAllocationRow large{
      .image_id = 1, .stack_id = 2, .size_bytes = 1 << 20, .probability = 1, .born_ms = kStartMs + 95};
  small.id = writer->add_heap_allocation(small);
  large.id = writer->add_heap_allocation(large);
  EXPECT_EQ(large.id, 2);

  writer->commit_if_due(kStartMs + 900, kStartMs + 1000);
  // Committed: another connection sees them (the WAL holds them until the finish).
  EXPECT_EQ(first_cell_text(recording.path, "SELECT count(*) FROM heap_allocation WHERE freed_ms IS NULL"), "2");
  EXPECT_EQ(first_cell_text(recording.path, "SELECT count(*) FROM heap_image WHERE ended_ms IS NULL"), "2");

  // After it: updates of written rows, and rows updated before they are written.
  parent.ended_ms = kStartMs + 2000;
  parent.end = "exit";
  parent.samples = 12;
  parent.samples_dropped = 1;
  writer->update_heap_image_end(parent);
  child.process_id = 2;  // learned after the image's first row
  child.ended_ms = kStartMs + 3000;
  child.end = "lost";
  child.samples = 3;
  writer->update_heap_image_end(child);
  small.freed_ms = kStartMs + 1500;
  writer->set_heap_allocation_freed(small.id, *small.freed_ms);
  // Ids in an order other than the reader's (by image, then time).
  HeapSnapshotRow child_snapshot{.image_id = 2,
                                 .t_ms = kStartMs + 1800,
                                 .reason = "requested",
                                 .in_use_bytes = 4096,
                                 .peak_in_use_bytes = 8192,
                                 .samples = 3};
  HeapSnapshotRow parent_exit{.image_id = 1,
                              .t_ms = kStartMs + 1900,
                              .reason = "exit",
                              .in_use_bytes = 1 << 19,
                              .peak_in_use_bytes = 1 << 21,
                              .samples = 12};
  child_snapshot.id = writer->add_heap_snapshot(child_snapshot);
  parent_exit.id = writer->add_heap_snapshot(parent_exit);
  EXPECT_EQ(parent_exit.id, 3);
  // Only what changed since each image's previous snapshot.
  totals.push_back({3, 1, 3 << 20, 30, 3 << 20, 30});
  totals.push_back({2, 3, 4096, 1, 0, 0});
  writer->add_heap_stack_totals(totals[2]);
  writer->add_heap_stack_totals(totals[3]);
  HeapAllocationRow brief{
      .image_id = 2, .stack_id = 3, .size_bytes = 100, .probability = 0.000190714, .born_ms = kStartMs + 1700};
  HeapAllocationRow late{.image_id = 1, .stack_id = 1, .size_bytes = 0, .probability = 0.5, .born_ms = kStartMs + 1000};
  brief.id = writer->add_heap_allocation(brief);
  late.id = writer->add_heap_allocation(late);
  EXPECT_EQ(late.id, 4);
  brief.freed_ms = kStartMs + 1750;
  writer->set_heap_allocation_freed(brief.id, *brief.freed_ms);
  // As the recording ends, out of order: read back by process id.
  expected.unprofiled = {{.process_id = 1, .pid = 100, .reason = "static", .rate_bytes = 524288},
                         {.process_id = 2, .pid = 101, .reason = "no samples", .rate_bytes = 524288}};
  writer->add_heap_unprofiled(expected.unprofiled[1]);
  writer->add_heap_unprofiled(expected.unprofiled[0]);
  expected.unprofiled_recorded = true;
  writer->set_meta({.end_ms = kEndMs});
  EXPECT_TRUE(writer->finish());

  expected.images = {parent, child};
  expected.snapshots = {first, parent_exit, child_snapshot};
  expected.totals = {totals[0], totals[1], totals[3], totals[2]};
  expected.allocations = {small, large, late, brief};
  return recording;
}

TEST(HeapStore, EveryRowRoundTripsWithTheUpdatesMadeAfterItsCommit) {
  TempDir dir;
  HeapRecording recording = record_two_images(dir);
  HeapProfile read = read_profile(recording.path);
  EXPECT_EQ(rows_text(read.images), rows_text(recording.expected.images));
  EXPECT_EQ(rows_text(read.modules), rows_text(recording.expected.modules));
  EXPECT_EQ(rows_text(read.frames), rows_text(recording.expected.frames));
  EXPECT_EQ(rows_text(read.stacks), rows_text(recording.expected.stacks));
  EXPECT_EQ(rows_text(read.snapshots), rows_text(recording.expected.snapshots));
  EXPECT_EQ(rows_text(read.totals), rows_text(recording.expected.totals));
  EXPECT_EQ(rows_text(read.allocations), rows_text(recording.expected.allocations));
  EXPECT_EQ(rows_text(read.unprofiled), rows_text(recording.expected.unprofiled));
  EXPECT_TRUE(read.unprofiled_recorded);
}

// heap_unprofiled came after the first format 3 recordings, without a new format: a
// heap recording without it opens, and says it does not say.
TEST(HeapStore, AHeapRecordingFromBeforeHeapUnprofiledOpens) {
  TempDir dir;
  HeapRecording recording = record_two_images(dir);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(recording.path.c_str(), &db), SQLITE_OK);
    ScopedDb owned(db);
    ASSERT_TRUE(exec_sql(db, "DROP TABLE heap_unprofiled"));
  }
  auto reader = Reader::open(recording.path);
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->format_version(), 3);
  HeapProfile read = read_profile(recording.path);
  EXPECT_FALSE(read.unprofiled_recorded);
  EXPECT_TRUE(read.unprofiled.empty());
  EXPECT_EQ(rows_text(read.images), rows_text(recording.expected.images));
}

// The round trip above goes through one mapping of columns to fields both ways; the
// file itself must say what docs/file-format.md says it does.
TEST(HeapStore, TheFileHoldsEachValueInTheColumnNamedForIt) {
  TempDir dir;
  std::string path = record_two_images(dir).path;
  EXPECT_EQ(first_cell_text(path, "SELECT frame_ids FROM heap_stack WHERE id = 2"), "3,1,2");
  EXPECT_EQ(first_cell_text(path, "SELECT frame_ids FROM heap_stack WHERE id = 3"), "");
  EXPECT_EQ(first_cell_text(path, "SELECT end_reason FROM heap_image WHERE id = 2"), "lost");
  EXPECT_EQ(first_cell_text(path, "SELECT samples || ' ' || samples_dropped FROM heap_image WHERE id = 1"), "12 1");
  EXPECT_EQ(first_cell_text(path, "SELECT process_id FROM heap_image WHERE id = 2"), "2");
  EXPECT_EQ(first_cell_text(path, "SELECT module_id FROM heap_frame WHERE id = 3"), "NULL");
  EXPECT_EQ(first_cell_text(path, "SELECT typeof(probability) FROM heap_allocation WHERE id = 2"), "real");
  EXPECT_EQ(first_cell_text(path, "SELECT freed_ms - born_ms FROM heap_allocation WHERE id = 1"), "1410");
  EXPECT_EQ(first_cell_text(path, "SELECT freed_bytes FROM heap_stack_totals WHERE snapshot_id = 3"),
            std::to_string(3 << 20));
}

TEST(HeapStore, ARecordingWithHeapIsFormat3AndOpens) {
  TempDir dir;
  std::string path = record_two_images(dir).path;
  EXPECT_EQ(first_cell_text(path, "SELECT value FROM meta WHERE key = 'format_version'"), "3");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->format_version(), kHeapFormatVersion);
  EXPECT_EQ(reader->meta().format_version, 3);
  auto processes = reader->processes();
  ASSERT_TRUE(processes) << processes.error().message;
  EXPECT_EQ(processes->size(), 2u);
}

// A recording made without --heap is what it was before heap profiles: an older
// canopy reads it.
TEST(HeapStore, ARecordingWithoutHeapHasNoHeapTablesAndStaysFormat2) {
  TempDir dir;
  std::string path = dir.file("plain.canopy");
  {
    auto writer = Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    ProcessRow make;
    make.pid = 100;
    make.name = "make";
    writer->add_process(make);
    ASSERT_TRUE(writer->finish());
  }
  EXPECT_EQ(first_cell_text(path, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'heap%'"), "0");
  EXPECT_EQ(first_cell_text(path, "SELECT value FROM meta WHERE key = 'format_version'"), "2");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->format_version(), 2);
  auto profile = reader->heap_profile();
  ASSERT_TRUE(profile) << profile.error().message;
  EXPECT_TRUE(profile->images.empty());
  EXPECT_TRUE(profile->modules.empty());
  EXPECT_TRUE(profile->frames.empty());
  EXPECT_TRUE(profile->stacks.empty());
  EXPECT_TRUE(profile->snapshots.empty());
  EXPECT_TRUE(profile->totals.empty());
  EXPECT_TRUE(profile->allocations.empty());
  EXPECT_TRUE(profile->unprofiled.empty());
  EXPECT_FALSE(profile->unprofiled_recorded);
}

// More allocations between two commits than the writer holds: those written early
// are still freed by an update, those still waiting in memory by their row.
TEST(HeapStore, AllocationsWrittenBeforeTheirCommitAreFreedLater) {
  TempDir dir;
  std::string path = dir.file("many.canopy");
  constexpr int64_t kAllocations = 5000;
  {
    auto writer = Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    ASSERT_TRUE(writer->enable_heap());
    int64_t image = writer->add_heap_image({.pid = 7, .rate_bytes = 524288, .unwind = "auto"});
    int64_t stack = writer->add_heap_stack({.frame_ids = {}});
    for (int64_t i = 0; i < kAllocations; ++i) {
      writer->add_heap_allocation({.image_id = image, .stack_id = stack, .size_bytes = 64, .born_ms = i});
    }
    writer->set_heap_allocation_freed(1, 10'000);
    writer->set_heap_allocation_freed(kAllocations, 20'000);
    ASSERT_TRUE(writer->finish());
  }
  HeapProfile read = read_profile(path);
  ASSERT_EQ(read.allocations.size(), static_cast<size_t>(kAllocations));
  EXPECT_EQ(read.allocations.front().freed_ms, 10'000);
  EXPECT_EQ(read.allocations.back().freed_ms, 20'000);
  EXPECT_EQ(first_cell_text(path, "SELECT count(*) FROM heap_allocation WHERE freed_ms IS NULL"),
            std::to_string(kAllocations - 2));
}

// The recorder was killed while the image ran: its row never had its end written,
// and its sample count is its last snapshot's.
TEST(HeapStore, AnImageThatNeverEndedCountsTheSamplesOfItsSnapshots) {
  TempDir dir;
  std::string path = dir.file("killed.canopy");
  {
    auto writer = Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    ASSERT_TRUE(writer->enable_heap());
    int64_t image = writer->add_heap_image({.pid = 7, .rate_bytes = 524288, .unwind = "auto"});
    writer->add_heap_snapshot({.image_id = image, .t_ms = 1000, .reason = "peak", .samples = 5});
    writer->add_heap_snapshot({.image_id = image, .t_ms = 3000, .reason = "interval", .samples = 9});
    ASSERT_TRUE(writer->finish());
  }
  HeapProfile read = read_profile(path);
  ASSERT_EQ(read.images.size(), 1u);
  EXPECT_EQ(read.images[0].samples, 9);
  EXPECT_FALSE(read.images[0].end);
}

TEST(HeapStore, HeapRowsWithoutEnableHeapFailTheRecording) {
  TempDir dir;
  std::string path = dir.file("no-heap.canopy");
  auto writer = Writer::create(path, false);
  ASSERT_TRUE(writer) << writer.error().message;
  writer->add_heap_image({.pid = 7, .unwind = "auto"});
  auto finished = writer->finish();
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().message, "cannot write '" + path + "': heap rows added before enable_heap()");
}

// Values a flipped bit makes impossible, where SQLite's own checks cannot see them.
TEST(HeapStore, ImpossibleValuesAreRefusedInOneLineNamingTheFile) {
  TempDir dir;
  std::string good = record_two_images(dir).path;
  const std::string years = "188978560452";
  struct Damage {
    const char* name;
    std::string sql;
    std::string detail;  // what the error says after "the recording is corrupt: "
  };
  const std::vector<Damage> damage = {
      {"frame-module", "UPDATE heap_frame SET module_id = 9 WHERE id = 2",
       "heap frame 2 names heap module 9, which the recording does not have (it has 2)"},
      {"stack-frame", "UPDATE heap_stack SET frame_ids = '1,99' WHERE id = 1",
       "heap stack 1 names heap frame 99, which the recording does not have (it has 3)"},
      {"stack-text", "UPDATE heap_stack SET frame_ids = '1,x' || char(10) || '2' WHERE id = 2",
       "heap stack 2 has frame ids '1,x?2', not a list of ids"},
      {"stack-empty-id", "UPDATE heap_stack SET frame_ids = '1,,2' WHERE id = 2",
       "heap stack 2 has frame ids '1,,2', not a list of ids"},
      {"module-id", "UPDATE heap_module SET id = 7 WHERE id = 2",
       "a heap_module row has id 7, where the table's 2 rows have ids 1 to 2"},
      {"size", "UPDATE heap_allocation SET size_bytes = -4096 WHERE id = 2", "heap allocation 2 has size_bytes -4096"},
      {"probability-zero", "UPDATE heap_allocation SET probability = 0 WHERE id = 1",
       "heap allocation 1 has probability 0, outside (0, 1]"},
      {"probability-above-one", "UPDATE heap_allocation SET probability = 1.5 WHERE id = 1",
       "heap allocation 1 has probability 1.5, outside (0, 1]"},
      // Text in a REAL column keeps its type, and reads as the number 0.
      {"probability-text", "UPDATE heap_allocation SET probability = 'half' WHERE id = 3",
       "heap allocation 3 has probability 0, outside (0, 1]"},
      {"allocation-stack", "UPDATE heap_allocation SET stack_id = 4 WHERE id = 3",
       "heap allocation 3 names heap stack 4, which the recording does not have (it has 3)"},
      {"born", "UPDATE heap_allocation SET born_ms = born_ms - " + years + " WHERE id = 4",
       "heap allocation 4's birth at " + std::to_string(kStartMs + 1000 - 188978560452) +
           " ms since the epoch, outside the recording's span (" + std::to_string(kStartMs) + " to " +
           std::to_string(kEndMs) + ")"},
      {"freed-before-born", "UPDATE heap_allocation SET freed_ms = born_ms - 1 WHERE id = 1",
       "heap allocation 1 is freed (at " + std::to_string(kStartMs + 89) + " ms since the epoch) before it is born (" +
           std::to_string(kStartMs + 90) + ")"},
      {"snapshot-image", "UPDATE heap_snapshot SET image_id = 3 WHERE id = 2",
       "heap snapshot 2 names heap image 3, which the recording does not have (it has 2)"},
      {"snapshot-time", "UPDATE heap_snapshot SET t_ms = t_ms + " + years + " WHERE id = 3",
       "heap snapshot 3 at " + std::to_string(kStartMs + 1900 + 188978560452) +
           " ms since the epoch, outside the recording's span (" + std::to_string(kStartMs) + " to " +
           std::to_string(kEndMs) + ")"},
      {"snapshot-bytes", "UPDATE heap_snapshot SET in_use_bytes = -1 WHERE id = 1",
       "heap snapshot 1 has in_use_bytes -1"},
      {"totals-stack", "UPDATE heap_stack_totals SET stack_id = 0 WHERE snapshot_id = 2",
       "the heap totals row of snapshot 2 and stack 0 names heap stack 0, which the recording does not have (it has "
       "3)"},
      {"totals-freed", "UPDATE heap_stack_totals SET freed_count = -30 WHERE snapshot_id = 3",
       "the heap totals row of snapshot 3 and stack 1 has freed_count -30"},
      {"image-process", "UPDATE heap_image SET process_id = 42 WHERE id = 1",
       "heap image 1 of process 42, which the recording does not have (it has 2)"},
      {"image-end", "UPDATE heap_image SET ended_ms = started_ms - 1 WHERE id = 2",
       "heap image 2 ends (at " + std::to_string(kStartMs + 49) + " ms since the epoch) before it starts (" +
           std::to_string(kStartMs + 50) + ")"},
      {"image-samples", "UPDATE heap_image SET samples_dropped = -1 WHERE id = 1",
       "heap image 1 has samples_dropped -1"},
      {"unprofiled-process", "UPDATE heap_unprofiled SET process_id = 9 WHERE process_id = 2",
       "the heap_unprofiled row of process 9, which the recording does not have (it has 2)"},
      {"unprofiled-pid", "UPDATE heap_unprofiled SET pid = -101 WHERE process_id = 2",
       "the heap_unprofiled row of process 2 has pid -101"},
      {"unprofiled-rate", "UPDATE heap_unprofiled SET rate_bytes = -1 WHERE process_id = 1",
       "the heap_unprofiled row of process 1 has rate_bytes -1"},
      {"unprofiled-reason", "UPDATE heap_unprofiled SET reason = '' WHERE process_id = 1",
       "the heap_unprofiled row of process 1 has no reason"},
  };
  for (const Damage& d : damage) {
    std::string path = dir.file(std::string(d.name) + ".canopy");
    std::filesystem::copy_file(good, path);
    {
      sqlite3* db = nullptr;
      ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
      ScopedDb owned(db);
      auto status = exec_sql(db, d.sql.c_str());
      ASSERT_TRUE(status) << d.sql << ": " << status.error().message;
      ASSERT_GE(sqlite3_changes(db), 1) << d.sql << ": damaged nothing";
    }
    auto reader = Reader::open(path);
    ASSERT_TRUE(reader) << d.name << ": " << reader.error().message;
    auto profile = reader->heap_profile();
    ASSERT_FALSE(profile) << d.name << ": read";
    EXPECT_EQ(profile.error().message, "cannot read '" + path + "': the recording is corrupt: " + d.detail) << d.name;
  }
}

}  // namespace
}  // namespace canopy::store
