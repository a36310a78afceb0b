// Inserts EventBatches into the event table on a thread of its own, one batch at a
// time, while the caller fills the next. The connection is used only by this thread
// between start and finish(), so SQLite's multi-thread mode (NOMUTEX) is enough.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "common/result.h"
#include "store/log_import.h"

namespace canopy::store {

class EventBatchWriter {
 public:
  // Rows are inserted as (t_ms, 'log', NULL, text, source_id), in the order of tables.h.
  static Result<std::unique_ptr<EventBatchWriter>> start(sqlite3* db, const std::string& path, int64_t source_id);
  ~EventBatchWriter();

  // Hands `batch` over (it comes back empty, holding a spare buffer) once the previous
  // one is written. Returns the first write error, if any.
  Status submit(EventBatch& batch);
  // Waits until everything submitted is written; the thread ends.
  Status finish();

 private:
  EventBatchWriter() = default;
  void run();
  Status write(const EventBatch& batch);

  // One statement inserts kRowsPerStatement rows: SQLite's cost is mostly per statement
  // run (VDBE setup, cursors), not per row.
  static constexpr size_t kRowsPerStatement = 128;
  sqlite3* db_ = nullptr;
  std::string path_;
  ScopedStmt insert_many_;
  ScopedStmt insert_one_;

  std::mutex mutex_;
  std::condition_variable changed_;
  EventBatch pending_;
  bool has_pending_ = false;
  bool busy_ = false;
  bool stopping_ = false;
  std::optional<Error> error_;
  std::thread thread_;
};

}  // namespace canopy::store
