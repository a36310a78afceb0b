// The recording's schema is its file format: existing recordings and every consumer
// of an export read it, so a fresh recording's tables must stay exactly as pinned in
// tests/fixtures/schema/recording.sql, and those --heap adds as pinned in
// recording_heap.sql, and the CPU profile's after those as pinned in recording_cpu.sql
// (regenerate them only with a format change), and each table must have exactly the
// columns its entry in store/tables.h or store/heap_tables.h names.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <sstream>

#include "store/heap_tables.h"
#include "store/tables.h"
#include "store/writer.h"
#include "support/temp_dir.h"

namespace canopy::store {
namespace {

using canopy::testing::TempDir;

// Each row's text for `sql`, one per line.
std::string query_lines(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  std::string lines;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      lines += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      lines += "\n";
    }
  } else {
    lines = std::string("error: ") + sqlite3_errmsg(db);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return lines;
}

std::string fresh_recording(const TempDir& dir, bool heap = false) {
  std::string path = dir.file(heap ? "fresh-heap.canopy" : "fresh.canopy");
  auto writer = Writer::create(path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  if (heap) {
    EXPECT_TRUE(writer->enable_heap());
  }
  EXPECT_TRUE(writer->finish());
  return path;
}

// --cpu-profile: the heap tables (whose stacks its samples name), then its own.
std::string fresh_cpu_recording(const TempDir& dir) {
  std::string path = dir.file("fresh-cpu.canopy");
  auto writer = Writer::create(path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  EXPECT_TRUE(writer->enable_cpu_profile());
  EXPECT_TRUE(writer->finish());
  return path;
}

std::string golden_schema(const char* name) {
  std::ifstream golden(std::string(CANOPY_FIXTURES) + "/schema/" + name);
  std::stringstream text;
  text << golden.rdbuf();
  return text.str();
}

// A table's column names, one per line: as the file has them, and as `table` names them.
std::string columns_in_file(const std::string& path, const Table& table) {
  return query_lines(path, std::string("SELECT name FROM pragma_table_info('") + table.name + "') ORDER BY cid");
}
std::string columns_of(const Table& table) {
  std::string names;
  for (const Column& column : table.columns) {
    names += std::string(column.name) + "\n";
  }
  return names;
}

TEST(Schema, AFreshRecordingHasTheSchemaOfItsGoldenFile) {
  TempDir dir;
  std::string path = fresh_recording(dir);
  std::string expected = golden_schema("recording.sql");
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(query_lines(path, "SELECT sql || ';' FROM sqlite_master ORDER BY rowid"), expected);
}

// --heap adds its tables after the others, which stay as they are.
TEST(Schema, AHeapRecordingAddsTheTablesOfItsGoldenFile) {
  TempDir dir;
  std::string path = fresh_recording(dir, true);
  std::string heap = golden_schema("recording_heap.sql");
  ASSERT_FALSE(heap.empty());
  EXPECT_EQ(query_lines(path, "SELECT sql || ';' FROM sqlite_master ORDER BY rowid"),
            golden_schema("recording.sql") + heap);
}

TEST(Schema, ACpuRecordingAddsTheHeapTablesAndItsOwnAsPinned) {
  TempDir dir;
  std::string path = fresh_cpu_recording(dir);
  std::string cpu = golden_schema("recording_cpu.sql");
  ASSERT_FALSE(cpu.empty());
  EXPECT_EQ(query_lines(path, "SELECT sql || ';' FROM sqlite_master ORDER BY rowid"),
            golden_schema("recording.sql") + golden_schema("recording_heap.sql") + cpu);
  EXPECT_EQ(columns_in_file(path, kCpuSampleTable), columns_of(kCpuSampleTable));
  EXPECT_EQ(query_lines(path, "SELECT value FROM meta WHERE key = 'format_version'"), "4\n");
}

TEST(Schema, EveryHeapTableHasTheColumnsOfItsTable) {
  TempDir dir;
  std::string path = fresh_recording(dir, true);
  for (const Table* table : kHeapTables) {
    EXPECT_EQ(columns_in_file(path, *table), columns_of(*table)) << table->name;
  }
}

// A column named in one place only (the file, or a table the writer and reader use)
// fails here.
TEST(Schema, EveryTableOfAFreshRecordingHasTheColumnsOfItsTable) {
  TempDir dir;
  std::string path = fresh_recording(dir);
  for (const Table* table : kTables) {
    EXPECT_EQ(columns_in_file(path, *table), columns_of(*table)) << table->name;
  }
  std::string tables;
  for (const Table* table : kTables) {
    tables += std::string(table->name) + "\n";
  }
  EXPECT_EQ(query_lines(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid"), tables);
}

}  // namespace
}  // namespace canopy::store
