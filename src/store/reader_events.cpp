// Reader: the event and log_source tables (the recorder's own events and imported log
// lines), apart from the tables of processes, ticks and samples in reader.cpp.
#include <string>

#include "store/reader.h"

namespace canopy::store {
namespace {

// Format 1 has no source_id column; it reads as NULL.
std::string event_columns(int64_t format_version, bool with_text) {
  return std::string("rowid, t_ms, kind, process_id, ") + (with_text ? "text" : "NULL") + ", " +
         (format_version >= 2 ? "source_id" : "NULL");
}

EventRow event_from_row(sqlite3_stmt* s) {
  EventRow row;
  row.id = sqlite3_column_int64(s, 0);
  row.t_ms = sqlite3_column_int64(s, 1);
  row.kind = column_text(s, 2);
  row.process_id = column_optional(s, 3);
  row.text = column_text(s, 4);
  row.source_id = column_optional(s, 5);
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

Status Reader::each_event(std::string_view sql, const EventVisitor& visit) const {
  return each_row(sql, [&](sqlite3_stmt* s) {
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
  // Kinds are our own words: anything else asks for nothing rather than being quoted.
  if (kind.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") != std::string_view::npos) {
    return rows;
  }
  std::string quoted = "'" + std::string(kind) + "'";
  RETURN_IF_ERROR(each_event("SELECT " + event_columns(format_version_, true) + " FROM event WHERE kind = " + quoted +
                             " ORDER BY t_ms, rowid",
                         [&](const EventRow& row) { rows.push_back(row); }));
  return rows;
}

Status Reader::for_each_event(const EventVisitor& visit, bool with_text) const {
  return each_event("SELECT " + event_columns(format_version_, with_text) + " FROM event ORDER BY t_ms, rowid", visit);
}

Result<std::vector<EventRow>> Reader::events_by_id(std::span<const int64_t> ids) const {
  if (!event_by_id_) {
    auto stmt = prepare(db_.get(), "SELECT " + event_columns(format_version_, true) + " FROM event WHERE rowid = ?");
    if (!stmt) {
      return read_error();
    }
    event_by_id_ = std::move(*stmt);
  }
  sqlite3_stmt* s = event_by_id_.get();
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
  auto status = each_row("SELECT id, name, format, added_ms, events, outside_span FROM log_source ORDER BY id",
                         [&](sqlite3_stmt* s) {
                           rows.push_back({sqlite3_column_int64(s, 0), column_text(s, 1), column_text(s, 2),
                                           sqlite3_column_int64(s, 3), sqlite3_column_int64(s, 4),
                                           sqlite3_column_int64(s, 5)});
                           return Status(Ok{});
                         });
  if (!status) {
    return status.error();
  }
  return rows;
}

}  // namespace canopy::store
