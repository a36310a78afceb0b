// Which field of a row struct (recording.h) each column of its table (tables.h) holds:
// one switch per table, so that a column without a field is a compiler warning
// (-Wswitch), and the writer's binds, the reader's reads and copies between rows all
// go through the one mapping. Column i binds as parameter i + 1 and reads from result
// column i (tables.h numbers its statements' parameters so).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/sqlite.h"
#include "store/tables.h"

namespace canopy::store {

template <typename Row>
struct RowFields;

template <>
struct RowFields<ProcessRow> {
  using Index = process_column::Index;
  static constexpr const Table& kTable = kProcessTable;
  // Calls `f` with a pointer to the member that holds column `c`.
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = process_column;
    switch (c) {
      case col::kId: return f(&ProcessRow::id);
      case col::kPid: return f(&ProcessRow::pid);
      case col::kStartTicks: return f(&ProcessRow::start_ticks);
      case col::kStartMs: return f(&ProcessRow::start_ms);
      case col::kParentId: return f(&ProcessRow::parent_id);
      case col::kPpid: return f(&ProcessRow::ppid);
      case col::kAdopted: return f(&ProcessRow::adopted);
      case col::kName: return f(&ProcessRow::name);
      case col::kExe: return f(&ProcessRow::exe);
      case col::kCmdline: return f(&ProcessRow::cmdline);
      case col::kNamedFromExitRecord: return f(&ProcessRow::named_from_exit_record);
      case col::kFirstSeenMs: return f(&ProcessRow::first_seen_ms);
      case col::kLastSeenMs: return f(&ProcessRow::last_seen_ms);
      case col::kEndMs: return f(&ProcessRow::end_ms);
      case col::kExitCode: return f(&ProcessRow::exit_code);
      case col::kExitSignal: return f(&ProcessRow::exit_signal);
      case col::kPeakRssBytes: return f(&ProcessRow::peak_rss_bytes);
      case col::kPeakRssTMs: return f(&ProcessRow::peak_rss_t_ms);
      case col::kHwmBytes: return f(&ProcessRow::hwm_bytes);
      case col::kCpuUserNs: return f(&ProcessRow::cpu_user_ns);
      case col::kCpuSystemNs: return f(&ProcessRow::cpu_system_ns);
      case col::kCount: return;
    }
  }
};

template <>
struct RowFields<TickRow> {
  using Index = tick_column::Index;
  static constexpr const Table& kTable = kTickTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = tick_column;
    switch (c) {
      case col::kTMs: return f(&TickRow::t_ms);
      case col::kProcesses: return f(&TickRow::processes);
      case col::kRssBytes: return f(&TickRow::rss_bytes);
      case col::kSwapBytes: return f(&TickRow::swap_bytes);
      case col::kPssBytes: return f(&TickRow::pss_bytes);
      case col::kCpuNs: return f(&TickRow::cpu_ns);
      case col::kMemTotalBytes: return f(&TickRow::mem_total_bytes);
      case col::kMemAvailableBytes: return f(&TickRow::mem_available_bytes);
      case col::kSwapTotalBytes: return f(&TickRow::swap_total_bytes);
      case col::kSwapFreeBytes: return f(&TickRow::swap_free_bytes);
      case col::kCount: return;
    }
  }
};

template <>
struct RowFields<CgroupTickRow> {
  using Index = cgroup_tick_column::Index;
  static constexpr const Table& kTable = kCgroupTickTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = cgroup_tick_column;
    switch (c) {
      case col::kTMs: return f(&CgroupTickRow::t_ms);
      case col::kMemoryBytes: return f(&CgroupTickRow::memory_bytes);
      case col::kMemoryPeakBytes: return f(&CgroupTickRow::memory_peak_bytes);
      case col::kCpuNs: return f(&CgroupTickRow::cpu_ns);
      case col::kOomKills: return f(&CgroupTickRow::oom_kills);
      case col::kMemoryLimitHits: return f(&CgroupTickRow::memory_limit_hits);
      case col::kCount: return;
    }
  }
};

// EventRow::id is the rowid, not a column: readers select it after the columns.
template <>
struct RowFields<EventRow> {
  using Index = event_column::Index;
  static constexpr const Table& kTable = kEventTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = event_column;
    switch (c) {
      case col::kTMs: return f(&EventRow::t_ms);
      case col::kKind: return f(&EventRow::kind);
      case col::kProcessId: return f(&EventRow::process_id);
      case col::kText: return f(&EventRow::text);
      case col::kSourceId: return f(&EventRow::source_id);
      case col::kCount: return;
    }
  }
};

template <>
struct RowFields<LogSourceRow> {
  using Index = log_source_column::Index;
  static constexpr const Table& kTable = kLogSourceTable;
  template <typename F>
  static void visit(Index c, F&& f) {
    namespace col = log_source_column;
    switch (c) {
      case col::kId: return f(&LogSourceRow::id);
      case col::kName: return f(&LogSourceRow::name);
      case col::kFormat: return f(&LogSourceRow::format);
      case col::kAddedMs: return f(&LogSourceRow::added_ms);
      case col::kEvents: return f(&LogSourceRow::events);
      case col::kOutsideSpan: return f(&LogSourceRow::outside_span);
      case col::kContentSha256: return f(&LogSourceRow::content_sha256);
      case col::kCount: return;
    }
  }
};

// A list of ids (a heap stack's frames) as it is stored: decimal, comma separated,
// "12,13,14" ("" for none). Text that is not such a list parses as nothing at all,
// never as the ids before the damage.
std::string id_list_text(const std::vector<int64_t>& ids);
std::optional<std::vector<int64_t>> parse_id_list(std::string_view text);

// One value as a statement parameter / from a result column. A command line is
// stored as its JSON array text, a list of ids as id_list_text (damaged, it reads as
// empty: a reader that must tell the two apart looks at the text).
// Declared before the templates below, which find them by ordinary lookup: the
// arguments' types are in other namespaces, where argument-dependent lookup would not.
void bind_value(sqlite3_stmt* s, int parameter, int64_t value);
void bind_value(sqlite3_stmt* s, int parameter, const std::optional<int64_t>& value);
void bind_value(sqlite3_stmt* s, int parameter, bool value);
void bind_value(sqlite3_stmt* s, int parameter, double value);
void bind_value(sqlite3_stmt* s, int parameter, const std::string& value);
void bind_value(sqlite3_stmt* s, int parameter, const std::optional<std::string>& value);
void bind_value(sqlite3_stmt* s, int parameter, const std::vector<std::string>& value);
void bind_value(sqlite3_stmt* s, int parameter, const std::vector<int64_t>& value);
void read_value(sqlite3_stmt* s, int column, int64_t& value);
void read_value(sqlite3_stmt* s, int column, std::optional<int64_t>& value);
void read_value(sqlite3_stmt* s, int column, bool& value);
void read_value(sqlite3_stmt* s, int column, double& value);
void read_value(sqlite3_stmt* s, int column, std::string& value);
void read_value(sqlite3_stmt* s, int column, std::optional<std::string>& value);
void read_value(sqlite3_stmt* s, int column, std::vector<std::string>& value);
void read_value(sqlite3_stmt* s, int column, std::vector<int64_t>& value);

// Binds column `c` of `row` as parameter c + 1.
template <typename Row>
void bind_field(sqlite3_stmt* s, const Row& row, int c) {
  RowFields<Row>::visit(static_cast<typename RowFields<Row>::Index>(c),
                        [&](auto member) { bind_value(s, c + 1, row.*member); });
}

template <typename Row>
void bind_fields(sqlite3_stmt* s, const Row& row, std::span<const int> columns) {
  for (int c : columns) {
    bind_field(s, row, c);
  }
}

// Binds every column of `row`, for insert_sql.
template <typename Row>
void bind_all_fields(sqlite3_stmt* s, const Row& row) {
  for (int c = 0; c < static_cast<int>(RowFields<Row>::kTable.columns.size()); ++c) {
    bind_field(s, row, c);
  }
}

// A row from a result whose first columns are the table's, in order (column_list).
template <typename Row>
Row read_fields(sqlite3_stmt* s) {
  Row row;
  for (int c = 0; c < static_cast<int>(RowFields<Row>::kTable.columns.size()); ++c) {
    RowFields<Row>::visit(static_cast<typename RowFields<Row>::Index>(c),
                          [&](auto member) { read_value(s, c, row.*member); });
  }
  return row;
}

// Copies `columns` from one row to another.
template <typename Row>
void copy_fields(Row& to, const Row& from, std::span<const int> columns) {
  for (int c : columns) {
    RowFields<Row>::visit(static_cast<typename RowFields<Row>::Index>(c),
                          [&](auto member) { to.*member = from.*member; });
  }
}

}  // namespace canopy::store
