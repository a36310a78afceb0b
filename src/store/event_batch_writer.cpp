#include "store/event_batch_writer.h"

#include "store/tables.h"

namespace canopy::store {
namespace {

// "(?, 'log', NULL, ?, SOURCE_ID)": one row's values, its time and text the parameters.
std::string log_row_values(int64_t source_id) {
  namespace ec = event_column;
  std::string values;
  for (int c = 0; c < ec::kCount; ++c) {
    values += c == 0 ? "(" : ", ";
    switch (static_cast<ec::Index>(c)) {
      case ec::kTMs:
      case ec::kText: values += "?"; break;
      case ec::kKind: values += "'log'"; break;
      case ec::kProcessId: values += "NULL"; break;
      case ec::kSourceId: values += std::to_string(source_id); break;
      case ec::kCount: break;
    }
  }
  return values + ")";
}

}  // namespace

Result<std::unique_ptr<EventBatchWriter>> EventBatchWriter::start(sqlite3* db, const std::string& path,
                                                                  int64_t source_id) {
  std::unique_ptr<EventBatchWriter> writer(new EventBatchWriter);
  writer->db_ = db;
  writer->path_ = path;
  std::string sql = "INSERT INTO event(" + column_list(kEventTable) + ") VALUES";
  std::string row = log_row_values(source_id);
  auto one = prepare(db, sql + row);
  for (size_t i = 0; i < kRowsPerStatement; ++i) {
    sql += (i == 0 ? "" : ",") + row;
  }
  auto many = prepare(db, sql);
  if (!one || !many) {
    return Error{"cannot write '" + path + "': " + last_error(db)};
  }
  writer->insert_one_ = std::move(*one);
  writer->insert_many_ = std::move(*many);
  writer->thread_ = std::thread([w = writer.get()] { w->run(); });
  return writer;
}

EventBatchWriter::~EventBatchWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    has_pending_ = false;  // abandoned: the caller rolls back anyway
  }
  changed_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
  }
}

Status EventBatchWriter::submit(EventBatch& batch) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !has_pending_ || error_; });
  if (error_) {
    return *error_;
  }
  std::swap(pending_, batch);
  batch.clear();
  has_pending_ = true;
  lock.unlock();
  changed_.notify_all();
  return Ok{};
}

Status EventBatchWriter::finish() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return (!has_pending_ && !busy_) || error_; });
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
  if (error_) {
    return *error_;
  }
  return Ok{};
}

void EventBatchWriter::run() {
  EventBatch writing;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return has_pending_ || stopping_; });
      if (!has_pending_) {
        return;  // stopping, nothing left
      }
      std::swap(writing, pending_);
      has_pending_ = false;
      busy_ = true;
    }
    changed_.notify_all();  // the caller may hand over the next one
    Status written = write(writing);
    writing.clear();
    {
      std::lock_guard lock(mutex_);
      busy_ = false;
      if (!written && !error_) {
        error_ = written.error();
      }
    }
    changed_.notify_all();
  }
}

Status EventBatchWriter::write(const EventBatch& batch) {
  size_t begin = 0;
  size_t row = 0;
  auto bind_row = [&](sqlite3_stmt* s, int column) {
    std::string_view text(batch.text.data() + begin, batch.text_ends[row] - begin);
    begin = batch.text_ends[row];
    sqlite3_bind_int64(s, column + 1, batch.t_ms[row]);
    // SQLITE_STATIC: the batch outlives the step that reads it.
    sqlite3_bind_text(s, column + 2, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    ++row;
  };
  auto step = [&](sqlite3_stmt* s) -> Status {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
      return Error{"cannot write '" + path_ + "': " + last_error(db_)};
    }
    return Ok{};
  };
  while (batch.size() - row >= kRowsPerStatement) {
    for (size_t i = 0; i < kRowsPerStatement; ++i) {
      bind_row(insert_many_.get(), static_cast<int>(2 * i));
    }
    if (auto status = step(insert_many_.get()); !status) {
      return status;
    }
  }
  while (row < batch.size()) {
    bind_row(insert_one_.get(), 0);
    if (auto status = step(insert_one_.get()); !status) {
      return status;
    }
  }
  return Ok{};
}

}  // namespace canopy::store
