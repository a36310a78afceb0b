#include "store/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <simdjson.h>
#include <unordered_map>

#include "common/json_dump.h"
#include "common/text.h"
#include "store/row_fields.h"

namespace canopy::store {
std::string json_string_array(const std::vector<std::string>& strings) {
  return json_dump(strings);
}

// Every reader of a recording calls this once per process (`canopy report`, the
// summary `record` prints, the viewer, export), so it parses with simdjson: nlohmann
// took 11.5 k instructions for each short command line of a 2,000-process churn, 41%
// of `canopy report`. The parser keeps its buffers from one call to the next.
std::vector<std::string> parse_json_string_array(const std::string& text) {
  static thread_local simdjson::dom::parser parser;
  simdjson::dom::array array;
  // The whole text is validated before any element is read: malformed JSON (or
  // anything but an array) yields no arguments rather than some.
  if (parser.parse(text.data(), text.size()).get(array) != simdjson::SUCCESS) {
    return {};
  }
  std::vector<std::string> args;
  args.reserve(array.size());
  for (simdjson::dom::element element : array) {
    std::string_view arg;
    if (element.get(arg) == simdjson::SUCCESS) {
      args.emplace_back(arg);
    }
  }
  return args;
}

namespace {

// SQLite's messages and integrity_check's verdicts can span lines ("*** in database
// main ***", then the page); an error is one line.
std::string one_line(std::string_view text) {
  constexpr std::string_view kHeading = "*** in database main ***";
  std::string line;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i, kHeading.size()) == kHeading) {
      i += kHeading.size() - 1;
    } else if (text[i] == '\n' || text[i] == '\r') {
      line += line.empty() ? "" : "; ";
      while (i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '\n')) {
        ++i;  // the next line's indentation
      }
    } else {
      line += text[i];
    }
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == ';')) {
    line.pop_back();
  }
  return line;
}

// Whether the file's header says WAL mode: bytes 18 and 19, the read and write
// versions, are 2 (sqlite.org/fileformat.html).
bool header_says_wal(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  unsigned char versions[2] = {};
  bool read = ::pread(fd, versions, sizeof versions, 18) == sizeof versions;
  ::close(fd);
  return read && versions[0] == 2 && versions[1] == 2;
}

// An SQLite URI naming `path`, read-only and immutable: no lock taken, no file created.
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  size_t start = 0;
  while (path.size() - start > 1 && path[start] == '/' && path[start + 1] == '/') {
    ++start;  // "//x" would read as the authority "x"; it is the same file as "/x"
  }
  for (size_t i = start; i < path.size(); ++i) {
    auto byte = static_cast<unsigned char>(path[i]);
    if (std::isalnum(byte) || byte == '/' || byte == '.' || byte == '_' || byte == '-') {
      uri += static_cast<char>(byte);
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", byte);
      uri += escaped;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

Error Reader::corrupt(const std::string& detail) const {
  return Error{"cannot read '" + path_ + "': the recording is corrupt: " + detail};
}

Error Reader::read_error() const {
  int code = sqlite3_errcode(db_.get());
  std::string why = one_line(last_error(db_.get()));
  if (code == SQLITE_NOTADB) {
    return Error{"cannot open '" + path_ + "': not a canopy recording (not an SQLite file)"};
  }
  if (code == SQLITE_CORRUPT) {
    return Error{"cannot open '" + path_ + "': the recording is truncated or corrupt (" + why + ")"};
  }
  return Error{"cannot read '" + path_ + "': " + why};
}

Result<Reader> Reader::open(const std::string& path, Verify verify) {
  Reader reader;
  reader.path_ = path;
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    return Error{"cannot open '" + path + "': " + std::strerror(errno)};
  }
  if (!S_ISREG(st.st_mode)) {
    return Error{"cannot open '" + path + "': not a regular file"};
  }
  // A recording whose recorder was killed still has its WAL beside it; SQLite needs
  // write access to replay it, so open read-write then (and only then).
  bool has_wal = ::access((path + "-wal").c_str(), F_OK) == 0;
  // NOMUTEX: a Reader is used by one thread at a time, and SQLite's own locking
  // would otherwise cost a mutex round trip on every column read.
  int flags = (has_wal ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
  std::string name = path;
  // A file in WAL mode without its WAL: a killed recorder's copied alone, or one whose
  // recorder is ending it (its WAL checkpointed into it, and removed). All of it is in
  // the file; but SQLite would create a -wal and a -shm beside it to read it, and
  // cannot at all in a directory it may not write. Immutable, it creates nothing.
  if (!has_wal && header_says_wal(path)) {
    name = immutable_uri(path);
    flags |= SQLITE_OPEN_URI;
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
  reader.db_ = ScopedDb(db);
  if (rc != SQLITE_OK) {
    return reader.read_error();
  }
  wait_for_locks(db);  // the recorder's, as it creates the file
  // integrity_check reads every page and index once: a truncated or damaged file is
  // reported here, in one line, instead of halfway through a report.
  if (verify == Verify::kIntegrityCheck) {
    auto check = prepare(db, "PRAGMA integrity_check(1)");
    if (!check) {
      return reader.read_error();
    }
    rc = sqlite3_step(check->get());
    if (rc != SQLITE_ROW) {
      return reader.read_error();
    }
    std::string verdict = column_text(check->get(), 0);
    if (verdict != "ok") {
      return Error{"cannot open '" + path + "': the recording is truncated or corrupt (" + one_line(verdict) + ")"};
    }
  }
  RETURN_IF_ERROR(reader.read_meta_and_bounds());
  return reader;
}

Status Reader::read_meta_and_bounds() {
  sqlite3* db = db_.get();
  const std::string& path = path_;
  int rc;
  auto meta = statements_.get(db, "SELECT " + column_list(kMetaTable) + " FROM meta");
  if (!meta) {
    if (sqlite3_errcode(db) == SQLITE_ERROR) {
      return Error{"cannot open '" + path + "': not a canopy recording (no meta table)"};
    }
    return read_error();
  }
  std::map<std::string, std::string> meta_rows;
  while ((rc = sqlite3_step(meta->get())) == SQLITE_ROW) {
    meta_rows[column_text(meta->get(), meta_column::kKey)] = column_text(meta->get(), meta_column::kValue);
  }
  if (rc != SQLITE_DONE) {
    return read_error();
  }
  meta_ = meta_from_rows(meta_rows);
  auto version = meta_.format_version;
  if (!version) {
    // The writer's first commit writes the meta: the schema alone is what a recorder
    // leaves when it was killed at once or its disk was full.
    auto has_processes = has_table(db, kProcessTable.name, &statements_);
    if (!has_processes) {
      return read_error();
    }
    if (meta_rows.empty() && *has_processes) {
      return Error{"cannot open '" + path + "': the recording is empty: its recorder stopped before its first commit"};
    }
    return Error{"cannot open '" + path + "': not a canopy recording (no format_version in meta)"};
  }
  if (*version > kNewestFormatVersion) {
    return Error{"cannot open '" + path + "': recorded in format " + std::to_string(*version) +
                 " by a newer canopy; this canopy reads up to format " + std::to_string(kNewestFormatVersion)};
  }
  format_version_ = *version;
  RecordingBounds::ProcessIds ids;
  auto counted = each_row("SELECT count(*), min(id), max(id) FROM process", [&](sqlite3_stmt* s) {
    ids = {sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2)};
    return Status(Ok{});
  });
  if (!counted) {
    return counted.error();
  }
  ASSIGN_OR_RETURN(auto bounds, RecordingBounds::of(path, meta_rows, ids));
  bounds_ = bounds;
  return Ok{};
}

Status Reader::each_row(std::string_view sql, const RowVisitor& on_row) const { return each_row(sql, {}, on_row); }

Status Reader::each_row(std::string_view sql, std::initializer_list<SqlParameter> parameters,
                        const RowVisitor& on_row) const {
  auto stmt = statements_.get(db_.get(), sql);
  if (!stmt) {
    return read_error();
  }
  bind_parameters(stmt->get(), parameters);
  int rc;
  while ((rc = sqlite3_step(stmt->get())) == SQLITE_ROW) {
    if (Status row = on_row(stmt->get()); !row) {
      return row;
    }
  }
  if (rc != SQLITE_DONE) {
    return read_error();
  }
  return Ok{};
}

Result<std::vector<ProcessRow>> Reader::processes() const { return process_rows("", {}); }

Result<std::vector<ProcessRow>> Reader::processes_changing(int64_t after_id, int64_t ended_since_ms) const {
  const std::string end = kProcessColumns[process_column::kEndMs].name;
  return process_rows(" WHERE " + std::string(kProcessColumns[process_column::kId].name) + " > ?1 OR " + end +
                          " IS NULL OR " + end + " >= ?2",
                      {after_id, ended_since_ms});
}

Result<std::vector<ProcessRow>> Reader::process_rows(const std::string& where,
                                                     std::initializer_list<SqlParameter> parameters) const {
  std::vector<ProcessRow> rows;
  // Recorded before canopy marked them: every name was read from /proc or copied at a fork.
  auto has_named_from = has_column(db_.get(), kProcessTable.name,
                                   kProcessColumns[process_column::kNamedFromExitRecord].name, &statements_);
  if (!has_named_from) {
    return read_error();
  }
  const std::pair<int, const char*> named_from_zero[] = {{process_column::kNamedFromExitRecord, "0"}};
  auto status = each_row(
      "SELECT " + column_list(kProcessTable, std::span(named_from_zero).first(*has_named_from ? 0 : 1)) +
          " FROM process" + where + " ORDER BY id",
      parameters, [&](sqlite3_stmt* s) {
        auto row = read_fields<ProcessRow>(s);
        // Its start may be before the recording's (attach mode), its other times not.
        std::string what = "process " + std::to_string(row.id) + "'s ";
        for (auto [name, t_ms] : {std::pair{"first sample", std::optional(row.first_seen_ms)},
                                  std::pair{"last sample", row.last_seen_ms}, std::pair{"end", row.end_ms},
                                  std::pair{"peak", row.peak_rss_t_ms}}) {
          if (auto problem = t_ms ? bounds_.time_problem(what + name, *t_ms) : std::nullopt) {
            return Status(corrupt(*problem));
          }
        }
        rows.push_back(std::move(row));
        return Status(Ok{});
      });
  if (!status) {
    return status.error();
  }
  return rows;
}

template <typename Row>
Result<std::vector<Row>> Reader::rows_in_time_order(const char* what, std::optional<int64_t> after_ms) const {
  std::vector<Row> rows;
  const Table& table = RowFields<Row>::kTable;
  const std::string sql = std::string("SELECT ") + column_list(table) + " FROM " + table.name +
                          (after_ms ? " WHERE t_ms > ?1" : "") + " ORDER BY t_ms";
  auto take = [&](sqlite3_stmt* s) {
    auto row = read_fields<Row>(s);
    if (auto problem = bounds_.time_problem(what, row.t_ms)) {
      return Status(corrupt(*problem));
    }
    rows.push_back(row);
    return Status(Ok{});
  };
  auto status = after_ms ? each_row(sql, {*after_ms}, take) : each_row(sql, take);
  if (!status) {
    return status.error();
  }
  return rows;
}

Result<std::vector<CgroupTickRow>> Reader::cgroup_ticks() const {
  auto has_table = store::has_table(db_.get(), kCgroupTickTable.name, &statements_);
  if (!has_table) {
    return read_error();
  }
  return *has_table ? rows_in_time_order<CgroupTickRow>("a cgroup tick") : std::vector<CgroupTickRow>();
}

Result<std::vector<TickRow>> Reader::ticks() const { return rows_in_time_order<TickRow>("a tick"); }

Result<std::unordered_map<int64_t, Reader::CpuTimes>> Reader::cpu_at_first_samples() const {
  // SQLite takes a bare column beside min() from the row that holds the minimum.
  const std::string sql = std::string("SELECT process_id, ") + kSampleColumnNames[kCpuUserNs] + ", " +
                          kSampleColumnNames[kCpuSystemNs] + ", min(rowid) FROM " + kSampleTable.name +
                          " GROUP BY process_id";
  std::unordered_map<int64_t, CpuTimes> first;
  RETURN_IF_ERROR(each_row(sql, [&](sqlite3_stmt* s) {
    first[sqlite3_column_int64(s, 0)] = {sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2)};
    return Status(Ok{});
  }));
  return first;
}

Result<std::vector<TickRow>> Reader::ticks_after(int64_t t_ms) const {
  return rows_in_time_order<TickRow>("a tick", t_ms);
}

Status Reader::begin_snapshot() {
  if (sqlite3_exec(db_.get(), "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return read_error();
  }
  Status read = read_meta_and_bounds();
  if (!read) {
    end_snapshot();
  }
  return read;
}

Result<int64_t> Reader::data_version() const {
  auto stmt = statements_.get(db_.get(), "PRAGMA data_version");
  if (!stmt || sqlite3_step(stmt->get()) != SQLITE_ROW) {
    return read_error();
  }
  return sqlite3_column_int64(stmt->get(), 0);
}

void Reader::end_snapshot() { sqlite3_exec(db_.get(), "COMMIT", nullptr, nullptr, nullptr); }

Status Reader::for_each_sample(const SampleVisitor& visit, std::span<const SampleColumn> columns) const {
  SampleCursor cursor;
  return for_each_sample_after(cursor, std::numeric_limits<int64_t>::max(), visit, columns);
}

Status Reader::for_each_sample_after(SampleCursor& cursor, int64_t up_to_ms, const SampleVisitor& visit,
                                     std::span<const SampleColumn> columns) const {
  std::vector<SampleColumn> all;
  if (columns.empty()) {
    for (int c = 0; c < kSampleColumnCount; ++c) {
      all.push_back(static_cast<SampleColumn>(c));
    }
    columns = all;
  }
  std::string sql = std::string("SELECT rowid, ") + kSampleTableColumns[sample_column::kTMs].name + ", " +
                    kSampleTableColumns[sample_column::kProcessId].name;
  for (SampleColumn c : columns) {
    sql += std::string(", ") + kSampleColumnNames[c];
  }
  // Rows are appended in time order.
  sql += " FROM sample WHERE rowid > ?1 ORDER BY rowid";
  // Process ids are dense from 1, so the carried values live in a vector by id.
  std::vector<SampleValues>& current = cursor.carried;
  constexpr int kFirstValue = 3;
  auto stmt = statements_.get(db_.get(), sql);
  if (!stmt) {
    return read_error();
  }
  bind_parameters(stmt->get(), {cursor.rowid});
  int rc;
  while ((rc = sqlite3_step(stmt->get())) == SQLITE_ROW) {
    sqlite3_stmt* s = stmt->get();
    int64_t t_ms = sqlite3_column_int64(s, 1);
    if (t_ms > up_to_ms) {
      return Ok{};
    }
    int64_t process_id = sqlite3_column_int64(s, 2);
    if (auto problem = bounds_.time_problem("a sample", t_ms)) {
      return corrupt(*problem);
    }
    if (auto problem = bounds_.process_problem("a sample", process_id)) {
      return corrupt(*problem);
    }
    if (static_cast<size_t>(process_id) >= current.size()) {
      current.resize(static_cast<size_t>(process_id) + 1);
    }
    SampleValues& values = current[static_cast<size_t>(process_id)];
    for (size_t i = 0; i < columns.size(); ++i) {
      int column = static_cast<int>(i) + kFirstValue;
      if (sqlite3_column_type(s, column) == SQLITE_NULL) {
        continue;
      }
      int64_t value = sqlite3_column_int64(s, column);
      if (value < 0) {  // every column is a size, a count or a time
        return corrupt("a sample of process " + std::to_string(process_id) + " has " +
                       kSampleColumnNames[columns[i]] + " " + std::to_string(value));
      }
      values.v[columns[i]] = value;
    }
    cursor.rowid = sqlite3_column_int64(s, 0);
    visit(t_ms, process_id, values);
  }
  if (rc != SQLITE_DONE) {
    return read_error();
  }
  return Ok{};
}

}  // namespace canopy::store
