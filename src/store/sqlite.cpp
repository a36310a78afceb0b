#include "store/sqlite.h"

#include <sys/resource.h>

#include <cstring>

#include <initializer_list>
#include <utility>

namespace canopy::store {

std::string last_error(sqlite3* db) {
  if (!db) {
    return "out of memory";
  }
  std::string text = sqlite3_errmsg(db);
  // SQLite words every failed read or write "disk I/O error". It keeps no errno for a
  // write to the file (it reports a short one as failed): a write past the file-size
  // limit (ulimit -f) is the one cause that is not the disk's, so say when there is
  // such a limit. Its other I/O errors keep theirs, e.g. a full disk that refused
  // to grow the WAL's index.
  int code = sqlite3_extended_errcode(db);
  if (code == SQLITE_IOERR_WRITE) {
    rlimit limit{};
    if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      text += " (a write failed; this process may write files of at most " + std::to_string(limit.rlim_cur) +
              " bytes: ulimit -f)";
    }
  } else if ((code & 0xff) == SQLITE_IOERR && sqlite3_system_errno(db) != 0) {
    text += std::string(" (") + std::strerror(sqlite3_system_errno(db)) + ")";
  }
  return text;
}

void configure_sqlite() { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

void wait_for_locks(sqlite3* db) { sqlite3_busy_timeout(db, kLockWaitMs); }

Status exec_sql(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (int code = sqlite3_exec(db, sql, nullptr, nullptr, &message); code != SQLITE_OK) {
    std::string text = message && (code & 0xff) != SQLITE_IOERR ? message : last_error(db);
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

void bind_parameters(sqlite3_stmt* stmt, std::initializer_list<SqlParameter> parameters) {
  int index = 0;
  for (const SqlParameter& parameter : parameters) {
    ++index;
    if (const auto* text = std::get_if<std::string_view>(&parameter)) {
      bind_text(stmt, index, *text);
    } else {
      sqlite3_bind_int64(stmt, index, std::get<int64_t>(parameter));
    }
  }
}

StatementCache::Held::Held(sqlite3_stmt* stmt, bool* held, ScopedStmt owned)
    : stmt_(stmt), held_(held), owned_(std::move(owned)) {}

StatementCache::Held::Held(Held&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      held_(std::exchange(other.held_, nullptr)),
      owned_(std::move(other.owned_)) {}

StatementCache::Held::~Held() {
  if (held_) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    *held_ = false;
  }
}

Result<StatementCache::Held> StatementCache::get(sqlite3* db, std::string_view sql) {
  auto it = entries_.find(std::string(sql));
  if (it == entries_.end()) {
    ASSIGN_OR_RETURN(auto stmt, prepare(db, sql));
    it = entries_.emplace(std::string(sql), Entry{std::move(stmt)}).first;
  }
  Entry& entry = it->second;
  if (entry.held) {
    ASSIGN_OR_RETURN(auto fresh, prepare(db, sql));
    sqlite3_stmt* stmt = fresh.get();
    return Held(stmt, nullptr, std::move(fresh));
  }
  entry.held = true;  // node-based: the mark stays where it is as the map grows
  return Held(entry.stmt.get(), &entry.held, ScopedStmt());
}

namespace {

// Whether `sql`, with `parameters` bound, yields a row.
Result<bool> any_row(sqlite3* db, std::string_view sql, std::initializer_list<SqlParameter> parameters,
                     StatementCache* cache) {
  StatementCache uncached;
  ASSIGN_OR_RETURN(auto stmt, (cache ? *cache : uncached).get(db, sql));
  bind_parameters(stmt.get(), parameters);
  int rc = sqlite3_step(stmt.get());
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    return Error{last_error(db)};
  }
  return rc == SQLITE_ROW;
}

}  // namespace

Result<bool> has_table(sqlite3* db, std::string_view table, StatementCache* cache) {
  return any_row(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", {table}, cache);
}

Result<bool> has_column(sqlite3* db, std::string_view table, std::string_view column, StatementCache* cache) {
  return any_row(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", {table, column}, cache);
}

}  // namespace canopy::store
