#include "store/writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/output_path.h"
#include "store/reader.h"
#include "store/row_fields.h"
#include "store/schema.h"

namespace canopy::store {
namespace {

// Removes a previous recording and the WAL files SQLite keeps beside it.
void remove_recording(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    ::unlink((path + suffix).c_str());
  }
}

// Sets the journal mode; SQLite answers with the mode in force, which is the old one
// when it refuses the new.
Result<std::string> journal_mode(sqlite3* db, const char* mode) {
  ASSIGN_OR_RETURN(auto statement, prepare(db, std::string("PRAGMA journal_mode=") + mode));
  if (sqlite3_step(statement.get()) != SQLITE_ROW) {
    return Error{last_error(db)};
  }
  return column_text(statement.get(), 0);
}

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

Result<Writer> Writer::create(const std::string& path, bool force) {
  auto target = resolve_output(path, {force, kRecordingNeedsRegularFile, {}});
  if (!target) {
    return target.error();
  }
  const std::string& file = target->path;  // symlinks followed
  if (target->kind == OutputTarget::Kind::kRegular) {
    remove_recording(file);
  }
  // O_EXCL: never write over a file that appeared after the check.
  ScopedFd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd) {
    if (errno == EEXIST) {
      return Error{"cannot write '" + path + "': file exists (use --force to replace it)"};
    }
    return Error{"cannot write '" + path + "': " + std::strerror(errno)};
  }
  fd.reset();

  Writer writer;
  writer.path_ = path;
  sqlite3* db = nullptr;
  // NOMUTEX: a Writer is used by one thread at a time. Without it every bind and step
  // takes and releases the connection's mutex: 4% of the recorder's user-space
  // instructions on an idle tree at 10 ms.
  int rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  writer.db_ = ScopedDb(db);
  auto fail = [&](const std::string& why) -> Result<Writer> {
    writer.db_.reset();
    remove_recording(file);
    return Error{"cannot write '" + path + "': " + why};
  };
  if (rc != SQLITE_OK) {
    return fail(last_error(db));
  }
  wait_for_locks(db);  // a reader's, opening the file as it is made
  // The schema goes in as one transaction without a journal or a sync: the file is new
  // and the command not yet started, so a crash in between leaves a file the reader
  // rejects, as a crash between two journaled statements did. A journal here cost a
  // create, four syncs and an unlink, more than the schema itself, on every recording.
  std::string schema = "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;" + schema_sql() + "COMMIT;";
  if (auto status = exec_sql(db, schema.c_str()); !status) {
    return fail(status.error().message);
  }
  // WAL + synchronous=NORMAL: a commit is one append to the WAL without fsync, so it
  // survives the recorder being killed (not a power cut) and costs little per second.
  // Where WAL is refused (a file system without shared memory), a rollback journal:
  // slower, as safe.
  auto mode = journal_mode(db, "WAL");
  if (mode && *mode != "wal") {
    mode = journal_mode(db, "DELETE");
  }
  if (!mode || (*mode != "wal" && *mode != "delete")) {
    return fail(mode ? "cannot turn on a journal (SQLite kept journal_mode=" + *mode + ")" : mode.error().message);
  }
  if (auto status = exec_sql(db, "PRAGMA synchronous=NORMAL"); !status) {
    return fail(status.error().message);
  }
  struct {
    ScopedStmt* target;
    std::string sql;
  } statements[] = {
      {&writer.process_insert_, insert_sql(kProcessTable)},
      {&writer.process_exec_, update_sql(kProcessTable, kExecColumns, pc::kId)},
      {&writer.process_end_, update_sql(kProcessTable, kEndUpdateColumns, pc::kId)},
      {&writer.sample_, insert_sql(kSampleTable)},
      {&writer.tick_, insert_sql(kTickTable, "INSERT OR REPLACE")},
      {&writer.cgroup_tick_, insert_sql(kCgroupTickTable, "INSERT OR REPLACE")},
      {&writer.event_, insert_sql(kEventTable)},
  };
  for (auto& statement : statements) {
    auto prepared = prepare(db, statement.sql);
    if (!prepared) {
      return fail(prepared.error().message);
    }
    *statement.target = std::move(*prepared);
  }
  if (auto status = exec_sql(db, "BEGIN"); !status) {
    return fail(status.error().message);
  }
  writer.set_meta({.format_version = kFormatVersion});
  return writer;
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

void Writer::write_pending_processes() {
  sqlite3_stmt* s = process_insert_.get();
  for (const ProcessRow& row : pending_processes_) {
    bind_all_fields(s, row);
    step(s);
  }
  pending_processes_.clear();
}

void Writer::update_process_exec(const ProcessRow& row) {
  if (ProcessRow* pending = pending_process(row.id)) {
    copy_fields(*pending, row, kExecColumns);
    return;
  }
  pending_exec_updates_.push_back(row);
}

void Writer::write_process_exec(const ProcessRow& row) {
  sqlite3_stmt* s = process_exec_.get();
  bind_field(s, row, pc::kId);
  bind_fields(s, row, kExecColumns);
  step(s);
}

void Writer::update_process_end(const ProcessRow& row) {
  if (ProcessRow* pending = pending_process(row.id)) {
    copy_fields(*pending, row, kEndUpdateColumns);
    return;
  }
  pending_end_updates_.push_back(row);
}

void Writer::write_process_end(const ProcessRow& row) {
  sqlite3_stmt* s = process_end_.get();
  bind_field(s, row, pc::kId);
  bind_fields(s, row, kEndUpdateColumns);
  step(s);
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
  for (const TickRow& row : pending_ticks_) {
    write_tick(row);
  }
  pending_ticks_.clear();
  for (const CgroupTickRow& row : pending_cgroup_ticks_) {
    write_cgroup_tick(row);
  }
  pending_cgroup_ticks_.clear();
}

void Writer::write_cgroup_tick(const CgroupTickRow& row) {
  sqlite3_stmt* s = cgroup_tick_.get();
  bind_all_fields(s, row);
  step(s);
}

void Writer::write_tick(const TickRow& row) {
  sqlite3_stmt* s = tick_.get();
  bind_all_fields(s, row);
  step(s);
}

void Writer::write_pending_updates() {
  for (const ProcessRow& row : pending_exec_updates_) {
    write_process_exec(row);
  }
  pending_exec_updates_.clear();
  for (const ProcessRow& row : pending_end_updates_) {
    write_process_end(row);
  }
  pending_end_updates_.clear();
}

void Writer::add_event(const EventRow& row) {
  pending_events_.push_back(row);
  if (pending_events_.size() >= kPendingEventsAtMost) {
    write_pending_events();
  }
}

void Writer::write_pending_events() {
  for (const EventRow& row : pending_events_) {
    write_event(row);
  }
  pending_events_.clear();
}

void Writer::write_event(const EventRow& row) {
  sqlite3_stmt* s = event_.get();
  bind_all_fields(s, row);
  step(s);
}

void Writer::write_everything_pending() {
  write_pending_processes();
  write_pending_updates();
  write_pending_events();
  write_pending_samples();
  write_pending_ticks();
}

void Writer::commit_if_due(int64_t now_ms, int64_t next_tick_ms) {
  if (next_tick_ms - last_commit_ms_ < kUncommittedUnderMs) {
    return;
  }
  last_commit_ms_ = now_ms;
  write_everything_pending();
  if (auto status = exec_sql(db_.get(), "COMMIT; BEGIN"); !status && !failure_) {
    failure_ = Error{"cannot write '" + path_ + "': " + status.error().message};
  }
}

Status Writer::finish() {
  write_everything_pending();
  if (failure_) {
    return *failure_;
  }
  if (auto status = exec_sql(db_.get(), "COMMIT"); !status) {
    return Error{"cannot write '" + path_ + "': " + status.error().message};
  }
  // One file to keep or send: leaving WAL mode checkpoints the WAL into the recording
  // and deletes it. SQLite refuses while another connection (a viewer) has the file
  // open; then a checkpoint still puts everything in the recording itself.
  //
  // Leaving for OFF rather than DELETE: SQLite then rewrites the header (it marks the
  // file as not WAL) without a rollback journal, which cost a file created, three syncs
  // and an unlink on every recording. Only the header's first 100 bytes change, within
  // one disk sector, so a torn write of that page cannot leave a broken one. The file
  // is the same either way: a journal mode other than WAL is not stored in it, and
  // the next connection uses a rollback journal (DELETE) as usual.
  auto mode = journal_mode(db_.get(), "OFF");
  // Refused, it answers "database is locked" (SQLITE_BUSY), not the mode it kept.
  bool still_wal = mode ? *mode == "wal" : sqlite3_errcode(db_.get()) == SQLITE_BUSY;
  if (!mode && !still_wal) {
    return Error{"cannot write '" + path_ + "': " + mode.error().message};
  }
  if (still_wal) {
    if (auto status = exec_sql(db_.get(), "PRAGMA wal_checkpoint(TRUNCATE)"); !status) {
      return Error{"cannot write '" + path_ + "': " + status.error().message};
    }
  }
  db_.reset();
  return Ok{};
}

}  // namespace canopy::store
