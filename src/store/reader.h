// Reads a recording: validates that it is one (and of a format we understand), loads
// its small tables, and streams samples with values carried forward.
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "store/cpu_rows.h"
#include "store/heap_rows.h"
#include "store/meta.h"
#include "store/recording.h"
#include "store/recording_bounds.h"
#include "store/sqlite.h"

namespace canopy::store {

// Command lines are stored as JSON arrays of strings ("[\"make\", \"-j8\"]"); bytes that
// are not UTF-8 are replaced, since /proc text can hold anything.
std::string json_string_array(const std::vector<std::string>& strings);
std::vector<std::string> parse_json_string_array(const std::string& text);

class Reader {
 public:
  // How much open() checks. kIntegrityCheck reads every page and index up front
  // (PRAGMA integrity_check), so that a damaged file is refused before anything is
  // printed: for the commands that read the whole recording anyway (report, export,
  // diff). A reader that must start fast (the viewer, the summary `record` prints of
  // the file it has just written) passes kWhileReading: damage then surfaces as the
  // same one-line error from the read that meets it.
  enum class Verify { kIntegrityCheck, kWhileReading };

  // One line on failure naming the file and the cause: missing, not SQLite, not a
  // canopy recording, a newer format, truncated or corrupt. Every read below also
  // refuses, in one line, a value the recording cannot hold (RecordingBounds): a time
  // outside its span, a process it does not have.
  static Result<Reader> open(const std::string& path, Verify verify = Verify::kIntegrityCheck);

  const std::string& path() const { return path_; }
  const RecordingMeta& meta() const { return meta_; }

  // Following a recording still being written (`canopy view` of a running recorder's
  // file, `record --serve`): the reads between begin_snapshot() and end_snapshot() see
  // one commit of the writer's, so the ticks and the samples read agree. begin_snapshot
  // also reads the meta and the bounds again (the end, when the recorder has finished;
  // the processes found since).
  Status begin_snapshot();
  void end_snapshot();
  // Changes when another connection (the recorder's) commits: a poll that finds it
  // unchanged reads nothing more.
  Result<int64_t> data_version() const;
  // The ticks after `t_ms`, in time order.
  Result<std::vector<TickRow>> ticks_after(int64_t t_ms) const;

  Result<std::vector<ProcessRow>> processes() const;
  // The rows a follower reads again after each commit: those found after `after_id`,
  // those without an end yet, and those that ended at `ended_since_ms` or later (the
  // recorder still amends a row when a late exit record or exit status comes). In id
  // order.
  Result<std::vector<ProcessRow>> processes_changing(int64_t after_id, int64_t ended_since_ms) const;
  Result<std::vector<TickRow>> ticks() const;
  // Each process's CPU time (user, system) at its first sample, by process id: for a
  // process attached to, what it had used before the recording. One pass over the
  // samples.
  struct CpuTimes {
    int64_t user_ns = 0;
    int64_t system_ns = 0;
  };
  Result<std::unordered_map<int64_t, CpuTimes>> cpu_at_first_samples() const;
  // Empty when the command ran without a cgroup, or the recording predates them.
  Result<std::vector<CgroupTickRow>> cgroup_ticks() const;
  // Every event in time order (ties in the order they were written).
  Result<std::vector<EventRow>> events() const;
  // The events of one of the recorder's kinds ("limit", "exec"...), in time order.
  Result<std::vector<EventRow>> events_of_kind(std::string_view kind) const;
  // The same, one at a time, for recordings with millions of log lines; without
  // `with_text` the text stays empty (cheaper, for building an index).
  using EventVisitor = std::function<void(const EventRow&)>;
  Status for_each_event(const EventVisitor& visit, bool with_text = true) const;
  // The events with these ids (EventRow::id), in the order asked; unknown ids are skipped.
  Result<std::vector<EventRow>> events_by_id(std::span<const int64_t> ids) const;
  Result<std::vector<LogSourceRow>> log_sources() const;
  // The heap profile (record --heap), every table in the orders heap_rows.h states;
  // empty for a recording made without --heap. Refused in one line when a row names
  // a row the profile does not have, or holds a value it cannot (a negative size, a
  // probability outside (0, 1], a time outside the recording).
  Result<HeapProfile> heap_profile() const;
  // Whether its processes ran with the heap profiler loaded (record --heap, off
  // included): it has a heap image. Without reading the profile.
  Result<bool> heap_profiled() const;
  // The CPU profile (record --cpu-profile, reader_cpu.cpp): its samples in the order
  // recorded, with the stacks, frames and modules they name; `recorded` false and all
  // empty for a recording made without it. Refused in one line like the heap profile.
  Result<CpuProfile> cpu_profile() const;

  // 1 to 4 (kNewestFormatVersion): format 1 recordings have no imported logs, format 3
  // ones have heap tables (record --heap), and format 4 ones a CPU profile and the heap
  // tables its stacks are in (record --cpu-profile, with or without --heap).
  int64_t format_version() const { return format_version_; }

  // Calls `visit` for every sample row in time order with the process's full values
  // at that moment (columns the row left NULL carried forward from its previous row).
  // With `columns`, only those are read (the others stay empty): reading a large
  // recording is mostly the cost of decoding columns.
  using SampleVisitor = std::function<void(int64_t t_ms, int64_t process_id, const SampleValues&)>;
  Status for_each_sample(const SampleVisitor& visit, std::span<const SampleColumn> columns = {}) const;
  // Where a follower's reading of the samples stands: the last row read, and each
  // process's values so far (for the columns read, which must be the same each time).
  struct SampleCursor {
    int64_t rowid = 0;
    std::vector<SampleValues> carried;  // by process id
  };
  // The rows after the cursor, up to the first one after `up_to_ms` (left for the next
  // call: a row between two ticks belongs to the later one), moving the cursor on.
  Status for_each_sample_after(SampleCursor& cursor, int64_t up_to_ms, const SampleVisitor& visit,
                               std::span<const SampleColumn> columns) const;

 private:
  Reader() = default;
  // Reads the meta table and the bounds of the recording (open, begin_snapshot).
  Status read_meta_and_bounds();
  Error read_error() const;
  // "cannot read 'PATH': the recording is corrupt: DETAIL".
  Error corrupt(const std::string& detail) const;
  // Runs `sql` (prepared once: statements_), with `parameters` bound as its 1, 2...,
  // and calls `on_row` for each row until one fails; any SQLite failure becomes
  // read_error().
  using RowVisitor = std::function<Status(sqlite3_stmt*)>;
  Status each_row(std::string_view sql, const RowVisitor& on_row) const;
  Status each_row(std::string_view sql, std::initializer_list<SqlParameter> parameters,
                  const RowVisitor& on_row) const;
  // The process rows `where` (an SQL WHERE clause, or empty) selects, with `parameters`.
  Result<std::vector<ProcessRow>> process_rows(const std::string& where,
                                               std::initializer_list<SqlParameter> parameters) const;
  // Every row of the table of Row (ticks, cgroup ticks), in time order; `what` names
  // one in the error for a time outside the recording.
  template <typename Row>
  Result<std::vector<Row>> rows_in_time_order(const char* what, std::optional<int64_t> after_ms = {}) const;
  // The event in `row` (event_columns), refused when the recording cannot hold it.
  Result<EventRow> checked_event(sqlite3_stmt* row) const;
  // Runs `sql` (selecting event_columns, with `parameters` bound) and calls `visit` with
  // each checked event.
  Status each_event(std::string_view sql, std::initializer_list<SqlParameter> parameters,
                    const EventVisitor& visit) const;

  // Every row of Row's heap table in `order` (an ORDER BY), each refused when
  // `problem`, given its statement and the row, names one, and the table refused
  // when its ids are not 1 to its number of rows (reader_heap.cpp).
  template <typename Row, typename Problem>
  Status read_heap_rows(const char* order, std::vector<Row>& rows, const Problem& problem) const;

  std::string path_;
  ScopedDb db_;
  mutable StatementCache statements_;  // of db_, so finalized before it closes
  RecordingMeta meta_;
  int64_t format_version_ = 0;
  RecordingBounds bounds_;
};

}  // namespace canopy::store
