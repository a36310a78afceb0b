// Writes a recording while it is being made. Crash-safe: the file is in WAL mode and
// committed before kUncommittedUnderMs passes uncommitted (see commit_if_due), so a
// recorder killed with SIGKILL leaves a recording that opens, missing at most its last
// second (its last interval, at intervals longer than that). finish() checkpoints it
// into one self-contained file.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "store/cpu_rows.h"
#include "store/heap_rows.h"
#include "store/meta.h"
#include "store/pending_rows.h"
#include "store/recording.h"
#include "store/sqlite.h"

namespace canopy::store {

inline constexpr int64_t kUncommittedUnderMs = 1000;
// While a page follows the recording as it is written (record --serve): the figures a
// commit holds are then at most 0.6 s old, and reach the page within a second with room
// for a loaded machine; more often would cost the recorder more page updates.
inline constexpr int64_t kWatchedUncommittedUnderMs = 700;
// Why `record -o` and `import -o` refuse a character device or FIFO.
inline constexpr const char* kRecordingNeedsRegularFile = "a recording must be a regular file";

class Writer {
 public:
  // Creates `path` (mode 0600: command lines can hold secrets), as output_path.h's
  // policy allows: an existing recording is replaced only with `force`, a symlink is
  // followed, and anything but a regular file is refused (SQLite writes a database in
  // place, and beside it its WAL: neither goes through a device or a pipe).
  static Result<Writer> create(const std::string& path, bool force);

  // Writes the fields of `meta` that are set (meta.h), at once.
  void set_meta(const RecordingMeta& meta);
  // Returns the new process id. The row is written at the next commit, with what the
  // updates below brought until then.
  int64_t add_process(const ProcessRow& row);
  // Its name, executable and command line, written at the next commit.
  void update_process_exec(const ProcessRow& row);
  // What is known when a process ends (end, exit status, peaks and CPU), written at
  // the next commit.
  void update_process_end(const ProcessRow& row);
  // Adds a row, written at the next commit, only when some value changed since this
  // process's previous row, and only the changed columns. Returns whether it did.
  bool add_sample(int64_t t_ms, int64_t process_id, const SampleValues& values);
  void add_tick(const TickRow& row);
  void add_cgroup_tick(const CgroupTickRow& row);
  // Written at the next commit, in the order added (up to kPendingEventsAtMost).
  void add_event(const EventRow& row);

  // Commits at the last tick before the next (due at `next_tick_ms`) would leave
  // `uncommitted_under_ms` or more since the previous commit: at 100 ms and the default,
  // every 900 ms; at a second or more, every tick.
  // A commit costs about as much as a tick's reads (SQLite's code runs cold after each
  // sleep), so the fewer the cheaper, as long as a kill loses under a second.
  // Whether it committed (a live viewer in this process reads the file then).
  bool commit_if_due(int64_t now_ms, int64_t next_tick_ms, int64_t uncommitted_under_ms = kUncommittedUnderMs);
  // The first write error, if any; the recorder stops recording on it.
  const std::optional<Error>& failure() const { return failure_; }

  // The heap profile (record --heap), in writer_heap.cpp. Its rows wait for the next
  // commit like the others. Ids are given here, dense from 1 in each table, so that a
  // row can name another before either is written; the caller deduplicates modules,
  // frames and stacks.
  //
  // Creates the heap tables and marks the recording format 3 (kHeapFormatVersion).
  // Call it before adding heap rows: rows without their tables fail the recording.
  Status enable_heap();
  int64_t add_heap_image(const HeapImageRow& row);
  // Its end, samples and process (ended_ms, end, samples, samples_dropped,
  // process_id), written at the next commit, whether or not the image was.
  void update_heap_image_end(const HeapImageRow& row);
  int64_t add_heap_module(const HeapModuleRow& row);
  int64_t add_heap_frame(const HeapFrameRow& row);
  int64_t add_heap_stack(const HeapStackRow& row);
  int64_t add_heap_snapshot(const HeapSnapshotRow& row);
  void add_heap_stack_totals(const HeapStackTotalsRow& row);
  int64_t add_heap_allocation(const HeapAllocationRow& row);
  // Written at the next commit, whether or not the allocation was (an allocation can
  // live for the whole recording).
  void set_heap_allocation_freed(int64_t allocation_id, int64_t freed_ms);
  // A process whose last program was not profiled, and why: once per process, as the
  // recording ends (its images have all arrived by then).
  void add_heap_unprofiled(const HeapUnprofiledRow& row);

  // The CPU profile (record --cpu-profile), in writer_cpu.cpp: the heap tables (if
  // enable_heap() has not made them: the samples name their stacks) and cpu_sample,
  // and format 4 (kCpuFormatVersion). Modules, frames and stacks go through the heap
  // calls above, deduplicated by the caller across both profilers.
  Status enable_cpu_profile();
  void add_cpu_sample(const CpuSampleRow& row);

  // Final commit, then checkpoint into a single file, out of WAL mode.
  Status finish();

  const std::string& path() const { return path_; }

 private:
  Writer() = default;
  // The inserts and updates of every table, on the new file's connection.
  Status prepare_statements();
  void step(sqlite3_stmt* stmt);
  void check(int rc);
  // Tick rows wait in memory for the next commit: a row written then is as safe as
  // one written at its tick, and SQLite's code is warm for a batch where a lone
  // insert after each sleep ran cold.
  void write_pending_ticks();
  // Sample rows wait likewise (up to kPendingSamplesAtMost), with only their changed
  // columns set.
  void write_pending_samples();
  // Most of a build's processes start and end between two commits: one insert then
  // costs less than an insert and its updates, and nothing uncommitted survives a
  // crash either way.
  void write_pending_processes();
  // The pending row of process `id`, or nullptr once it is written.
  ProcessRow* pending_process(int64_t id);
  // Updates of rows written at an earlier commit, and events, wait likewise: a
  // build's exec events and the ends of its longer processes, each stepped alone
  // between two sleeps, ran SQLite's code cold (about 13% of canopy's CPU recording
  // the bench's build at 1 s, 9% of the churn at 100 ms).
  void write_pending_updates();
  // Inserts each waiting row with `insert` (store/writer_rows.h), then empties `rows`,
  // a std::vector or a PendingRows.
  template <typename Rows>
  void insert_rows(Rows& rows, sqlite3_stmt* insert);
  // Sets `columns` of each waiting row, found by its column `id_column`, then empties
  // `rows`.
  template <typename Row>
  void update_rows(std::vector<Row>& rows, sqlite3_stmt* update, int id_column, std::span<const int> columns);
  // An update of some of the columns of a process row: its statement, and the rows
  // that wait for the next commit because their insert was committed before.
  struct ProcessUpdate {
    std::span<const int> columns;
    ScopedStmt statement;
    std::vector<ProcessRow> waiting;
  };
  // Into the pending row of row.id while it waits for its insert, else into `update`.
  void update_process(ProcessUpdate& update, const ProcessRow& row);
  // What waits in memory, written before each commit and at the finish alike.
  void write_everything_pending();
  // The heap profile's rows and statements (writer_heap.cpp).
  Status prepare_heap_statements();
  // Every heap row in the order of their references, then the updates of rows
  // written at an earlier commit.
  void write_pending_heap();
  // False, and the recording failed, when heap rows come without enable_heap().
  bool heap_tables_ready();
  void write_pending_heap_totals();
  void write_pending_heap_allocations();
  void write_pending_heap_updates();
  void write_pending_heap_unprofiled();
  void write_pending_cpu_samples();

  std::string path_;
  ScopedDb db_;
  ScopedStmt process_insert_;
  ScopedStmt sample_;
  ScopedStmt tick_;
  ScopedStmt cgroup_tick_;
  ScopedStmt event_;
  std::vector<SampleValues> last_written_;  // by process id
  std::vector<ProcessRow> pending_processes_;  // the newest ids, in order
  struct PendingSample {
    int64_t t_ms;
    int64_t process_id;
    SampleValues changed;  // empty where unchanged: written as NULL
  };
  static constexpr size_t kPendingSamplesAtMost = 4096;
  std::vector<PendingSample> pending_samples_;
  // Each applied in the order made; an exec and an end set different columns.
  ProcessUpdate exec_update_;
  ProcessUpdate end_update_;
  static constexpr size_t kPendingEventsAtMost = 4096;  // a command's output can be fast
  std::vector<EventRow> pending_events_;
  std::vector<TickRow> pending_ticks_;
  std::vector<CgroupTickRow> pending_cgroup_ticks_;

  // The heap profile's statements, once enable_heap() made its tables, and its rows.
  bool heap_enabled_ = false;
  ScopedStmt heap_image_insert_;
  ScopedStmt heap_image_end_;
  ScopedStmt heap_module_;
  ScopedStmt heap_frame_;
  ScopedStmt heap_stack_;
  ScopedStmt heap_snapshot_;
  ScopedStmt heap_stack_totals_;
  ScopedStmt heap_allocation_insert_;
  ScopedStmt heap_allocation_freed_;
  ScopedStmt heap_unprofiled_;
  PendingRows<HeapImageRow> pending_heap_images_;
  PendingRows<HeapModuleRow> pending_heap_modules_;
  PendingRows<HeapFrameRow> pending_heap_frames_;
  PendingRows<HeapStackRow> pending_heap_stacks_;
  PendingRows<HeapSnapshotRow> pending_heap_snapshots_;
  PendingRows<HeapAllocationRow> pending_heap_allocations_;
  // A snapshot brings a row per stack that changed and per allocation seen alive:
  // written at this many, as samples are, rather than held until the commit.
  static constexpr size_t kPendingHeapRowsAtMost = 4096;
  std::vector<HeapStackTotalsRow> pending_heap_totals_;
  std::vector<HeapImageRow> pending_heap_image_ends_;             // of images already written
  std::vector<HeapAllocationRow> pending_heap_allocation_frees_;  // id and freed_ms only
  std::vector<HeapUnprofiledRow> pending_heap_unprofiled_;

  // The CPU profile's statement, once enable_cpu_profile() made its table, and its rows
  // (written at kPendingHeapRowsAtMost, as the heap's many rows are).
  bool cpu_enabled_ = false;
  ScopedStmt cpu_sample_;
  std::vector<CpuSampleRow> pending_cpu_samples_;

  int64_t last_commit_ms_ = 0;
  std::optional<Error> failure_;
};

}  // namespace canopy::store
