#include "store/log_import.h"

#include <optional>
#include <utility>

#include "common/text.h"
#include "store/event_batch_writer.h"
#include "store/reader.h"
#include "store/row_fields.h"
#include "store/schema.h"

namespace canopy::store {
namespace {

namespace lc = log_source_column;

// "ALTER TABLE event ADD COLUMN source_id INTEGER REFERENCES log_source(id);"
std::string add_column_sql(const Table& table, int column) {
  return std::string("ALTER TABLE ") + table.name + " ADD COLUMN " + table.columns[column].name + " " +
         table.columns[column].definition + ";";
}

// Logs added by a canopy from before content digests left a log_source table without
// the column.
Status add_digest_column(sqlite3* db) {
  ASSIGN_OR_RETURN(auto has, has_column(db, kLogSourceTable.name, kLogSourceColumns[lc::kContentSha256].name));
  return has ? Status(Ok{}) : exec_sql(db, add_column_sql(kLogSourceTable, lc::kContentSha256).c_str());
}

// The first log of the recording with this content, if any.
Result<std::optional<LogSourceRow>> find_same_content(sqlite3* db, const std::string& content_sha256) {
  ASSIGN_OR_RETURN(auto query, prepare(db, "SELECT " + column_list(kLogSourceTable) +
                                               " FROM log_source WHERE content_sha256 = ?1 ORDER BY id LIMIT 1"));
  bind_text(query.get(), 1, content_sha256);
  if (sqlite3_step(query.get()) != SQLITE_ROW) {
    return std::optional<LogSourceRow>();
  }
  return std::optional(read_fields<LogSourceRow>(query.get()));
}

}  // namespace

Error LogImport::write_error() const { return Error{"cannot write '" + path_ + "': " + last_error(db_.get())}; }

Result<LogImport> LogImport::begin(const std::string& path, const LogSourceRow& source,
                                   const std::string& content_sha256, SameContent same_content, int64_t span_start_ms,
                                   int64_t span_end_ms) {
  // The reader's checks first: a file that is not a recording gets the same one line.
  int64_t format_version = 0;
  {  // closed before writing
    ASSIGN_OR_RETURN(auto reader, Reader::open(path, Reader::Verify::kWhileReading));
    format_version = reader.format_version();
  }

  LogImport import;
  import.path_ = path;
  import.span_start_ms_ = span_start_ms;
  import.span_end_ms_ = span_end_ms;
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  import.db_ = ScopedDb(db);
  if (rc != SQLITE_OK) {
    return import.write_error();
  }
  // A recorder holds the file's write lock almost all the time; leaving WAL mode needs
  // every other connection gone, so failing here means one is recording right now.
  // (A recording whose recorder was killed is still in WAL mode: this checkpoints it.)
  if (auto status = exec_sql(db, "PRAGMA journal_mode=DELETE"); !status) {
    int code = sqlite3_errcode(db);
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
      return Error{"cannot add to '" + path + "': it is being recorded right now; add logs after the recording ends"};
    }
    return Error{"cannot write '" + path + "': " + status.error().message};
  }
  // Bulk insert: a larger page cache keeps the time index's pages in memory.
  exec_sql(db, "PRAGMA cache_size=-65536").ok();
  if (auto status = exec_sql(db, "BEGIN IMMEDIATE"); !status) {
    return Error{"cannot write '" + path + "': " + status.error().message};
  }
  import.open_transaction_ = true;
  if (format_version < 2) {
    std::string upgrade = log_tables_sql() + add_column_sql(kEventTable, event_column::kSourceId);
    Status status = exec_sql(db, upgrade.c_str());
    if (status) {
      status = write_meta(db, {.format_version = kFormatVersion});
    }
    if (!status) {
      return Error{"cannot upgrade '" + path + "' to format 2: " + status.error().message};
    }
  }
  if (auto status = add_digest_column(db); !status) {
    return Error{"cannot write '" + path + "': " + status.error().message};
  }
  // Inside the transaction: two imports of one file at once cannot both pass.
  if (same_content == SameContent::kRefuse) {
    auto earlier = find_same_content(db, content_sha256);
    if (!earlier) {
      return import.write_error();
    }
    if (*earlier) {
      const LogSourceRow& e = **earlier;
      return Error{"cannot add '" + source.name + "' to '" + path + "': the same content was added on " +
                   format_local_time_ms(e.added_ms) + " (from '" + e.name + "', " + std::to_string(e.events) +
                   (e.events == 1 ? " event" : " events") + "); --again adds it a second time"};
    }
  }
  auto source_insert = prepare(db, insert_sql(kLogSourceTable));
  if (!source_insert) {
    return import.write_error();
  }
  LogSourceRow row = source;
  row.events = 0;
  row.outside_span = 0;
  row.content_sha256 = content_sha256;
  bind_all_fields(source_insert->get(), row);
  sqlite3_bind_null(source_insert->get(), lc::kId + 1);  // SQLite picks the id
  if (sqlite3_step(source_insert->get()) != SQLITE_DONE) {
    return import.write_error();
  }
  import.source_id_ = sqlite3_last_insert_rowid(db);
  auto writer = EventBatchWriter::start(db, path, import.source_id_);
  if (!writer) {
    return writer.error();
  }
  import.writer_ = std::move(*writer);
  return import;
}

LogImport::LogImport() = default;

LogImport::LogImport(LogImport&& other) noexcept
    : path_(std::move(other.path_)),
      db_(std::move(other.db_)),
      writer_(std::move(other.writer_)),
      filling_(std::move(other.filling_)),
      source_id_(other.source_id_),
      span_start_ms_(other.span_start_ms_),
      span_end_ms_(other.span_end_ms_),
      events_(other.events_),
      outside_span_(other.outside_span_),
      open_transaction_(std::exchange(other.open_transaction_, false)) {}

LogImport::~LogImport() {
  writer_.reset();  // its thread stops before the connection is used here
  if (open_transaction_ && db_) {
    exec_sql(db_.get(), "ROLLBACK").ok();
  }
}

Status LogImport::add(int64_t t_ms, std::string_view text) {
  filling_.t_ms.push_back(t_ms);
  filling_.text.append(text);
  filling_.text_ends.push_back(filling_.text.size());
  ++events_;
  if (t_ms < span_start_ms_ || t_ms > span_end_ms_) {
    ++outside_span_;
  }
  constexpr size_t kBatchRows = 8192;
  return filling_.size() == kBatchRows ? writer_->submit(filling_) : Ok{};
}

Status LogImport::commit() {
  Status written = writer_->submit(filling_);
  Status finished = writer_->finish();
  writer_.reset();
  if (!written || !finished) {
    return written ? finished : written;
  }
  constexpr int kCounts[] = {lc::kEvents, lc::kOutsideSpan};
  auto update = prepare(db_.get(), update_sql(kLogSourceTable, kCounts, lc::kId));
  if (!update) {
    return write_error();
  }
  LogSourceRow counted;
  counted.id = source_id_;
  counted.events = events_;
  counted.outside_span = outside_span_;
  bind_field(update->get(), counted, lc::kId);
  bind_fields(update->get(), counted, kCounts);
  if (sqlite3_step(update->get()) != SQLITE_DONE) {
    return write_error();
  }
  update = Error{};  // finalized before COMMIT
  if (auto status = exec_sql(db_.get(), "COMMIT"); !status) {
    return Error{"cannot write '" + path_ + "': " + status.error().message};
  }
  open_transaction_ = false;
  return Ok{};
}

}  // namespace canopy::store
