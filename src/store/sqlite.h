// Thin RAII and error helpers over the SQLite C API, shared by writer and reader.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>

#include "common/result.h"
#include "common/scoped_resource.h"

namespace canopy::store {

using ScopedDb = ScopedResource<sqlite3*, sqlite3_close_v2, nullptr>;
using ScopedStmt = ScopedResource<sqlite3_stmt*, sqlite3_finalize, nullptr>;

// Process-wide settings, before the first connection: no statistics of SQLite's
// memory use, whose global mutex every allocation of every statement took.
void configure_sqlite();

// Another connection's lock on the file is waited for, up to kLockWaitMs, rather than
// reported as "database is locked": a viewer or report opening a recording as the
// recorder creates it or turns on its WAL, the recorder committing beside a reader
// that is replaying the WAL's index. Such locks last milliseconds.
inline constexpr int kLockWaitMs = 5000;
void wait_for_locks(sqlite3* db);

Status exec_sql(sqlite3* db, const char* sql);
Result<ScopedStmt> prepare(sqlite3* db, std::string_view sql);

void bind_optional(sqlite3_stmt* stmt, int index, const std::optional<int64_t>& value);
void bind_text(sqlite3_stmt* stmt, int index, std::string_view text);
std::optional<int64_t> column_optional(sqlite3_stmt* stmt, int index);
std::string column_text(sqlite3_stmt* stmt, int index);

// A parameter of a statement: text, or an integer.
using SqlParameter = std::variant<std::string_view, int64_t>;
// Binds `parameters` as the statement's 1, 2...
void bind_parameters(sqlite3_stmt* stmt, std::initializer_list<SqlParameter> parameters);

// The statements one connection runs again and again, each prepared at its first use: a
// viewer following a recording runs the same reads after each of the recorder's
// commits, and compiling them took longer than running them. As single-threaded as the
// connection it belongs to.
class StatementCache {
 public:
  // A statement for its holder alone; dropping it resets it and clears its bindings.
  class Held {
   public:
    Held(Held&& other) noexcept;
    Held& operator=(Held&&) = delete;
    ~Held();
    sqlite3_stmt* get() const { return stmt_; }

   private:
    friend class StatementCache;
    Held(sqlite3_stmt* stmt, bool* held, ScopedStmt owned);
    sqlite3_stmt* stmt_;
    bool* held_;        // the cache's mark, cleared when dropped; null for an owned one
    ScopedStmt owned_;  // a statement asked for while the cache's was held
  };

  // `sql` on `db`. One asked for again while held (a read nested in another of the same
  // SQL) is prepared afresh, and finalized when dropped.
  Result<Held> get(sqlite3* db, std::string_view sql);

 private:
  struct Entry {
    ScopedStmt stmt;
    bool held = false;
  };
  std::unordered_map<std::string, Entry> entries_;
};

// Whether the database has this table, or its `table` this column (one added within a
// format, which older files lack). With a cache, the query is the cache's.
Result<bool> has_table(sqlite3* db, std::string_view table, StatementCache* cache = nullptr);
Result<bool> has_column(sqlite3* db, std::string_view table, std::string_view column,
                        StatementCache* cache = nullptr);

// "database disk image is malformed" and friends, from the connection's last error.
std::string last_error(sqlite3* db);

}  // namespace canopy::store
