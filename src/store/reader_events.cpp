// Reader: the event and log_source tables (the recorder's own events and imported log
// lines), apart from the tables of processes, ticks and samples in reader.cpp.
#include <string>
#include <utility>
#include <vector>

#include "store/reader.h"
#include "store/row_fields.h"

namespace canopy::store {
namespace {

// The event columns, then the rowid (EventRow::id). Format 1 has no source_id
// column; it reads as NULL.
std::string event_columns(int64_t format_version, bool with_text) {
  std::vector<std::pair<int, const char*>> instead;
  if (!with_text) {
    instead.emplace_back(event_column::kText, "NULL");
  }
  if (format_version < 2) {
    instead.emplace_back(event_column::kSourceId, "NULL");
  }
  return column_list(kEventTable, instead) + ", rowid";
}

EventRow event_from_row(sqlite3_stmt* s) {
  auto row = read_fields<EventRow>(s);
  row.id = sqlite3_column_int64(s, event_column::kCount);
  return row;
}

}  // namespace

// An imported log line may lie outside the recording (a log kept longer than the
// command ran); the recorder's own events may not.
Result<EventRow> Reader::checked_event(sqlite3_stmt* s) const {
  EventRow row = event_from_row(s);
  std::optional<std::string> problem;
  if (!row.source_id) {
    problem = bounds_.time_problem("an event", row.t_ms);
  }
  if (!problem && row.process_id) {
    problem = bounds_.process_problem("an event", *row.process_id);
  }
  if (problem) {
    return corrupt(*problem);
  }
  return row;
}

Status Reader::each_event(std::string_view sql, std::initializer_list<SqlParameter> parameters,
                          const EventVisitor& visit) const {
  return each_row(sql, parameters, [&](sqlite3_stmt* s) {
    auto row = checked_event(s);
    if (!row) {
      return Status(row.error());
    }
    visit(*row);
    return Status(Ok{});
  });
}

Result<std::vector<EventRow>> Reader::events() const {
  std::vector<EventRow> rows;
  RETURN_IF_ERROR(for_each_event([&](const EventRow& row) { rows.push_back(row); }));
  return rows;
}

Result<std::vector<EventRow>> Reader::events_of_kind(std::string_view kind) const {
  std::vector<EventRow> rows;
  RETURN_IF_ERROR(each_event("SELECT " + event_columns(format_version_, true) +
                                 " FROM event WHERE kind = ?1 ORDER BY t_ms, rowid",
                             {kind}, [&](const EventRow& row) { rows.push_back(row); }));
  return rows;
}

Status Reader::for_each_event(const EventVisitor& visit, bool with_text) const {
  return each_event("SELECT " + event_columns(format_version_, with_text) + " FROM event ORDER BY t_ms, rowid", {},
                    visit);
}

Result<std::vector<EventRow>> Reader::events_by_id(std::span<const int64_t> ids) const {
  auto stmt = statements_.get(db_.get(), "SELECT " + event_columns(format_version_, true) + " FROM event WHERE rowid = ?");
  if (!stmt) {
    return read_error();
  }
  sqlite3_stmt* s = stmt->get();
  std::vector<EventRow> rows;
  rows.reserve(ids.size());
  for (int64_t id : ids) {
    sqlite3_bind_int64(s, 1, id);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
      auto row = checked_event(s);
      if (!row) {
        sqlite3_reset(s);
        return row.error();
      }
      rows.push_back(std::move(*row));
      rc = sqlite3_step(s);
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
      return read_error();
    }
  }
  return rows;
}

Result<std::vector<LogSourceRow>> Reader::log_sources() const {
  std::vector<LogSourceRow> rows;
  if (format_version_ < 2) {
    return rows;
  }
  auto has_digest = has_column(db_.get(), kLogSourceTable.name,
                               kLogSourceColumns[log_source_column::kContentSha256].name, &statements_);
  if (!has_digest) {
    return read_error();
  }
  const std::pair<int, const char*> no_digest[] = {{log_source_column::kContentSha256, "NULL"}};
  auto status = each_row("SELECT " + column_list(kLogSourceTable, std::span(no_digest).first(*has_digest ? 0 : 1)) +
                             " FROM log_source ORDER BY id",
                         [&](sqlite3_stmt* s) {
                           rows.push_back(read_fields<LogSourceRow>(s));
                           return Status(Ok{});
                         });
  if (!status) {
    return status.error();
  }
  return rows;
}

}  // namespace canopy::store
