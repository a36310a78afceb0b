// The rows of a recording: what waits in memory for the next commit, and how each
// table's rows are bound. Making and finishing the file are in writer_file.cpp.
#include "store/writer.h"

#include "store/schema.h"
#include "store/writer_rows.h"

namespace canopy::store {
namespace {

namespace pc = process_column;

// What update_process_exec writes.
constexpr std::array<int, 4> kExecColumns = {pc::kName, pc::kExe, pc::kCmdline, pc::kNamedFromExitRecord};
// What update_process_end writes: the columns known when a process ends (NULL until
// then), and its start, which a fork event can make exact after the insert.
constexpr std::array<int, 10> kEndUpdateColumns = {pc::kStartMs,      pc::kLastSeenMs,   pc::kEndMs,
                                                   pc::kExitCode,     pc::kExitSignal,   pc::kPeakRssBytes,
                                                   pc::kPeakRssTMs,   pc::kHwmBytes,     pc::kCpuUserNs,
                                                   pc::kCpuSystemNs};
constexpr auto kEndColumns = std::span(kEndUpdateColumns).subspan<1>();

}  // namespace

Status Writer::prepare_statements() {
  exec_update_.columns = kExecColumns;
  end_update_.columns = kEndUpdateColumns;
  struct {
    ScopedStmt* target;
    std::string sql;
  } statements[] = {
      {&process_insert_, insert_sql(kProcessTable)},
      {&exec_update_.statement, update_sql(kProcessTable, kExecColumns, pc::kId)},
      {&end_update_.statement, update_sql(kProcessTable, kEndUpdateColumns, pc::kId)},
      {&sample_, insert_sql(kSampleTable)},
      {&tick_, insert_sql(kTickTable, "INSERT OR REPLACE")},
      {&cgroup_tick_, insert_sql(kCgroupTickTable, "INSERT OR REPLACE")},
      {&event_, insert_sql(kEventTable)},
  };
  for (auto& statement : statements) {
    ASSIGN_OR_RETURN(*statement.target, prepare(db_.get(), statement.sql));
  }
  return Ok{};
}

void Writer::check(int rc) {
  if (rc != SQLITE_DONE && rc != SQLITE_OK && !failure_) {
    failure_ = Error{"cannot write '" + path_ + "': " + last_error(db_.get())};
  }
}

void Writer::step(sqlite3_stmt* stmt) {
  check(sqlite3_step(stmt));
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
}

void Writer::set_meta(const RecordingMeta& meta) {
  if (auto status = write_meta(db_.get(), meta); !status && !failure_) {
    failure_ = Error{"cannot write '" + path_ + "': " + status.error().message};
  }
}

int64_t Writer::add_process(const ProcessRow& row) {
  int64_t id = static_cast<int64_t>(last_written_.size()) + 1;
  last_written_.emplace_back();
  ProcessRow& pending = pending_processes_.emplace_back(row);
  pending.id = id;
  // What update_process_end writes is not known yet: NULL until it is (a recorder
  // killed before leaves the process running to the end).
  copy_fields(pending, ProcessRow{}, kEndColumns);
  return id;
}

ProcessRow* Writer::pending_process(int64_t id) {
  // Ids are dense and the pending rows are the newest: the last of them has the
  // last id given out.
  int64_t index = id - static_cast<int64_t>(last_written_.size() - pending_processes_.size()) - 1;
  return index >= 0 && index < static_cast<int64_t>(pending_processes_.size())
             ? &pending_processes_[static_cast<size_t>(index)]
             : nullptr;
}

void Writer::write_pending_processes() { insert_rows(pending_processes_, process_insert_.get()); }

void Writer::update_process_exec(const ProcessRow& row) { update_process(exec_update_, row); }

void Writer::update_process_end(const ProcessRow& row) { update_process(end_update_, row); }

void Writer::update_process(ProcessUpdate& update, const ProcessRow& row) {
  if (ProcessRow* pending = pending_process(row.id)) {
    copy_fields(*pending, row, update.columns);
    return;
  }
  update.waiting.push_back(row);
}

bool Writer::add_sample(int64_t t_ms, int64_t process_id, const SampleValues& values) {
  SampleValues& last = last_written_.at(static_cast<size_t>(process_id - 1));
  PendingSample row{t_ms, process_id, {}};
  bool changed = false;
  for (int c = 0; c < kSampleColumnCount; ++c) {
    // An empty value is never written: NULL already means "as before".
    if (values.v[c] && values.v[c] != last.v[c]) {
      row.changed.v[c] = values.v[c];
      last.v[c] = values.v[c];
      changed = true;
    }
  }
  if (!changed) {
    return false;
  }
  pending_samples_.push_back(row);
  if (pending_samples_.size() >= kPendingSamplesAtMost) {
    write_pending_samples();  // an import adds many between commits
  }
  return true;
}

void Writer::write_pending_samples() {
  sqlite3_stmt* s = sample_.get();
  for (const PendingSample& row : pending_samples_) {
    sqlite3_bind_int64(s, sample_column::kTMs + 1, row.t_ms);
    sqlite3_bind_int64(s, sample_column::kProcessId + 1, row.process_id);
    for (int c = 0; c < kSampleColumnCount; ++c) {
      if (row.changed.v[c]) {
        sqlite3_bind_int64(s, sample_column::kFirstValue + c + 1, *row.changed.v[c]);
      }
    }
    step(s);
  }
  pending_samples_.clear();
}

void Writer::add_cgroup_tick(const CgroupTickRow& row) { pending_cgroup_ticks_.push_back(row); }

void Writer::add_tick(const TickRow& row) { pending_ticks_.push_back(row); }

void Writer::write_pending_ticks() {
  insert_rows(pending_ticks_, tick_.get());
  insert_rows(pending_cgroup_ticks_, cgroup_tick_.get());
}

void Writer::write_pending_updates() {
  for (ProcessUpdate* update : {&exec_update_, &end_update_}) {
    update_rows(update->waiting, update->statement.get(), pc::kId, update->columns);
  }
}

void Writer::add_event(const EventRow& row) {
  pending_events_.push_back(row);
  if (pending_events_.size() >= kPendingEventsAtMost) {
    insert_rows(pending_events_, event_.get());
  }
}

void Writer::write_everything_pending() {
  write_pending_processes();
  write_pending_updates();
  insert_rows(pending_events_, event_.get());
  write_pending_samples();
  write_pending_ticks();
  write_pending_heap();
  write_pending_cpu_samples();
}

bool Writer::commit_if_due(int64_t now_ms, int64_t next_tick_ms, int64_t uncommitted_under_ms) {
  if (next_tick_ms - last_commit_ms_ < uncommitted_under_ms) {
    return false;
  }
  last_commit_ms_ = now_ms;
  write_everything_pending();
  if (auto status = exec_sql(db_.get(), "COMMIT; BEGIN"); !status && !failure_) {
    failure_ = Error{"cannot write '" + path_ + "': " + status.error().message};
    return false;
  }
  return true;
}

}  // namespace canopy::store
