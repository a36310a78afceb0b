// The recording file's life: made without ever writing over anything but a regular
// file, journaled while recording (WAL, or a rollback journal where WAL is refused),
// and one self-contained file at the end. The rows are in writer.cpp.
#include "store/writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/output_path.h"
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
  if (auto status = writer.prepare_statements(); !status) {
    return fail(status.error().message);
  }
  if (auto status = exec_sql(db, "BEGIN"); !status) {
    return fail(status.error().message);
  }
  writer.set_meta({.format_version = kFormatVersion});
  return writer;
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
