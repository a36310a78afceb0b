#include "store/sqlite.h"

namespace canopy::store {

std::string last_error(sqlite3* db) { return db ? sqlite3_errmsg(db) : "out of memory"; }

void configure_sqlite() { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

Status exec_sql(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : last_error(db);
    sqlite3_free(message);
    return Error{text};
  }
  return Ok{};
}

Result<ScopedStmt> prepare(sqlite3* db, std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                         nullptr) != SQLITE_OK) {
    return Error{last_error(db)};
  }
  return ScopedStmt(stmt);
}

void bind_optional(sqlite3_stmt* stmt, int index, const std::optional<int64_t>& value) {
  if (value) {
    sqlite3_bind_int64(stmt, index, *value);
  } else {
    sqlite3_bind_null(stmt, index);
  }
}

void bind_text(sqlite3_stmt* stmt, int index, std::string_view text) {
  sqlite3_bind_text(stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

std::optional<int64_t> column_optional(sqlite3_stmt* stmt, int index) {
  if (sqlite3_column_type(stmt, index) == SQLITE_NULL) {
    return std::nullopt;
  }
  return sqlite3_column_int64(stmt, index);
}

std::string column_text(sqlite3_stmt* stmt, int index) {
  const unsigned char* text = sqlite3_column_text(stmt, index);
  return text ? std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(stmt, index)))
              : std::string();
}

}  // namespace canopy::store
