// Another connection's brief lock on a recording is waited for, not a failure: the
// recorder keeps writing beside a viewer, and a viewer opens a file the recorder holds.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "store/reader.h"
#include "store/sqlite.h"
#include "store/writer.h"
#include "support/temp_dir.h"

namespace canopy::store {
namespace {

using canopy::testing::TempDir;

// Another process's connection holding the file's write lock (taken with `begin`)
// until released, by a thread of its own after a pause far below kLockWaitMs.
class LockHolder {
 public:
  LockHolder(const std::string& path, const char* begin) {
    sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr);
    held_ = exec_sql(db_, begin).ok() && exec_sql(db_, "INSERT INTO meta VALUES ('lock-holder', 'x')").ok();
  }
  ~LockHolder() {
    if (releaser_.joinable()) {
      releaser_.join();
    }
    sqlite3_close_v2(db_);
  }
  bool held() const { return held_; }
  void release_soon() {
    releaser_ = std::thread([this] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      exec_sql(db_, "ROLLBACK").ok();
    });
  }

 private:
  sqlite3* db_ = nullptr;
  bool held_ = false;
  std::thread releaser_;
};

TEST(StoreLocks, TheWriterWaitsForAnotherConnectionsLockAndCommits) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  auto writer = Writer::create(path, false);
  ASSERT_TRUE(writer) << writer.error().message;
  const int64_t start = 1'700'000'000'000;
  TickRow tick;
  tick.t_ms = start;
  writer->add_tick(tick);
  writer->commit_if_due(start, start + 1000);  // the writer now holds no lock

  LockHolder other(path, "BEGIN IMMEDIATE");
  ASSERT_TRUE(other.held());
  other.release_soon();
  tick.t_ms = start + 1000;
  writer->add_tick(tick);
  writer->commit_if_due(start + 1000, start + 2000);  // waits for the lock
  auto finished = writer->finish();
  ASSERT_TRUE(finished) << finished.error().message;

  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  auto ticks = reader->ticks();
  ASSERT_TRUE(ticks) << ticks.error().message;
  EXPECT_EQ(ticks->size(), 2u);
}

TEST(StoreLocks, ARecordingFinishesWhileAViewerHasItOpen) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  auto writer = Writer::create(path, false);
  ASSERT_TRUE(writer) << writer.error().message;
  TickRow tick;
  tick.t_ms = 1'700'000'000'000;
  writer->add_tick(tick);
  writer->commit_if_due(tick.t_ms, tick.t_ms + 1000);
  auto viewer = Reader::open(path, Reader::Verify::kWhileReading);
  ASSERT_TRUE(viewer) << viewer.error().message;
  auto finished = writer->finish();
  ASSERT_TRUE(finished) << finished.error().message;
  auto ticks = viewer->ticks();
  ASSERT_TRUE(ticks) << ticks.error().message;
  EXPECT_EQ(ticks->size(), 1u);
}

TEST(StoreLocks, TheReaderWaitsForTheWritersLockAndOpens) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  {
    auto writer = Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    ASSERT_TRUE(writer->finish());
  }
  // Out of WAL mode now, as a finished recording is: a writer's exclusive lock keeps
  // every reader out until it commits, as while the recorder turns on its WAL.
  LockHolder other(path, "BEGIN EXCLUSIVE");
  ASSERT_TRUE(other.held());
  other.release_soon();
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
}

}  // namespace
}  // namespace canopy::store
