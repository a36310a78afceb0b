// Thin RAII and error helpers over the SQLite C API, shared by writer and reader.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

// Whether the database has this table, or its `table` this column (one added within a
// format, which older files lack).
Result<bool> has_table(sqlite3* db, std::string_view table);
Result<bool> has_column(sqlite3* db, std::string_view table, std::string_view column);

// "database disk image is malformed" and friends, from the connection's last error.
std::string last_error(sqlite3* db);

}  // namespace canopy::store
