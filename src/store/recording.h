// store/: the recording file. One SQLite file per recording (WAL while recording,
// a single checkpointed file at the end), format versioned in `meta`.
//
// Invariants: a process is identified by (pid, start_ticks), never pid alone; a
// `sample` row is written only when a value changed, and a NULL column means
// "unchanged since this process's previous row": readers carry values forward while
// the process lives. Timestamps are milliseconds since the Unix epoch (UTC).
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace canopy::store {

// The format a recording is written in. Bump when a reader of the previous version
// could misread a new file. Format 2 added imported logs: the log_source table,
// event.source_id and the event time index. Format 1 files are still read, and
// `canopy log add` upgrades them in place.
// A column that an older reader can go without (it names its columns) comes without a
// bump, and this reader reads it where it is: process.named_from_exit_record.
inline constexpr int64_t kFormatVersion = 2;
// A recording with heap tables (record --heap) is written as format 3: a format 2
// canopy would read it without its heap data and silently fall back to RSS
// heuristics, where refusing it ("recorded in format 3 by a newer canopy") is the
// honest answer. Recordings without heap data stay format 2, which older canopies read.
// A heap table that an older format 3 reader can go without comes without a bump too
// (it names the tables it reads), and this reader reads a file without it:
// heap_unprofiled.
inline constexpr int64_t kHeapFormatVersion = 3;
// A recording with a CPU profile (record --cpu-profile) is format 4: its samples name
// stacks of the heap tables, which it has (empty of heap images without --heap), and a
// format 3 canopy would read it as a heap recording that profiled nothing, and never
// see the samples. Recordings without a CPU profile keep their format.
inline constexpr int64_t kCpuFormatVersion = 4;
// The newest format this canopy reads; the reader refuses a newer one in one line.
inline constexpr int64_t kNewestFormatVersion = kCpuFormatVersion;

// Values of one process at one moment. A column is one of these indices; the array
// form lets the writer and reader treat all columns alike (change detection, NULLs).
enum SampleColumn : int {
  kRssAnonBytes,
  kRssFileBytes,
  kRssShmemBytes,
  kSwapBytes,
  kVmSizeBytes,
  kCpuUserNs,
  kCpuSystemNs,
  kThreads,
  kMinorFaults,
  kMajorFaults,
  kReadBytes,       // rchar: through syscalls, page cache included
  kWriteBytes,      // wchar
  kDiskReadBytes,   // read_bytes: from storage
  kDiskWriteBytes,  // write_bytes
  kPssBytes,        // only with --pss
  kUssBytes,        // only with --pss
  kSampleColumnCount
};
inline constexpr std::array<const char*, kSampleColumnCount> kSampleColumnNames = {
    "rss_anon_bytes", "rss_file_bytes", "rss_shmem_bytes", "swap_bytes",  "vm_size_bytes",
    "cpu_user_ns",    "cpu_system_ns",  "threads",         "minor_faults", "major_faults",
    "read_bytes",     "write_bytes",    "disk_read_bytes", "disk_write_bytes", "pss_bytes",
    "uss_bytes"};

// Values of one process at one moment. A column the probe could not read (I/O without
// permission, PSS without --pss) is empty, here as everywhere else in the data model.
struct SampleValues {
  std::array<std::optional<int64_t>, kSampleColumnCount> v;

  std::optional<int64_t>& operator[](SampleColumn c) { return v[c]; }
  const std::optional<int64_t>& operator[](SampleColumn c) const { return v[c]; }
  // anon + file + shmem, which are read together: empty until they are.
  std::optional<int64_t> rss_bytes() const {
    if (!v[kRssAnonBytes]) {
      return std::nullopt;
    }
    return *v[kRssAnonBytes] + v[kRssFileBytes].value_or(0) + v[kRssShmemBytes].value_or(0);
  }
  std::optional<int64_t> cpu_ns() const {
    if (!v[kCpuUserNs]) {
      return std::nullopt;
    }
    return *v[kCpuUserNs] + v[kCpuSystemNs].value_or(0);
  }
};

// How long after a process's end its recorder may still amend its row, as far as a
// follower reading only the rows that can change counts on (Reader::processes_changing):
// an exit record that comes late (record/exit_records.cpp checks it keeps within). An
// inherited zombie's exit status can come later still; a follower's full reads, which it
// paces, bring that in.
inline constexpr int64_t kProcessRowSettleMs = 5'000;

struct ProcessRow {
  int64_t id = 0;  // rowid, dense from 1 in order of discovery
  // int64_t, not pid_t: Linux PIDs fit in pid_t (at most 2^22), but an imported
  // Onlooker recording carries Windows PIDs, which are DWORDs up to 2^32 - 1.
  int64_t pid = 0;
  int64_t start_ticks = 0;  // from /proc/PID/stat: with pid, the identity
  int64_t start_ms = 0;
  std::optional<int64_t> parent_id;  // none for the root and for adopted orphans
  int64_t ppid = 0;
  bool adopted = false;  // reparented to the recorder (a subreaper) before we saw it
  std::string name;
  std::string exe;
  std::vector<std::string> cmdline;
  // Gone before canopy could read its own name, executable and command line (after
  // its last exec): the name is its taskstats exit record's, the other two are empty.
  bool named_from_exit_record = false;
  int64_t first_seen_ms = 0;
  std::optional<int64_t> last_seen_ms;
  std::optional<int64_t> end_ms;
  std::optional<int64_t> exit_code;
  std::optional<int64_t> exit_signal;
  // Filled when the process ends (or the recording does); a crashed recording leaves
  // them NULL for processes still alive, and readers derive them from samples.
  std::optional<int64_t> peak_rss_bytes;
  std::optional<int64_t> peak_rss_t_ms;
  std::optional<int64_t> hwm_bytes;  // VmHWM or the reaped child's ru_maxrss
  std::optional<int64_t> cpu_user_ns;
  std::optional<int64_t> cpu_system_ns;

  bool operator==(const ProcessRow&) const = default;
};

struct TickRow {
  int64_t t_ms = 0;
  int64_t processes = 0;  // alive in the tree at this tick
  int64_t rss_bytes = 0;  // sum over the tree
  int64_t swap_bytes = 0;
  std::optional<int64_t> pss_bytes;  // only with --pss
  int64_t cpu_ns = 0;  // cumulative, ended processes included
  int64_t mem_total_bytes = 0;
  int64_t mem_available_bytes = 0;
  int64_t swap_total_bytes = 0;
  int64_t swap_free_bytes = 0;
};

// The tree's cgroup at a tick, when the command ran in one: exact figures for the
// whole tree, shared pages counted once and page cache included, and what its limits
// did. Recordings without a cgroup (or older ones) have no rows.
struct CgroupTickRow {
  int64_t t_ms = 0;
  int64_t memory_bytes = 0;
  std::optional<int64_t> memory_peak_bytes;  // since the cgroup was made
  std::optional<int64_t> cpu_ns;             // cumulative
  int64_t oom_kills = 0;                     // cumulative
  int64_t memory_limit_hits = 0;             // cumulative
};

// Something that happened at a moment: the recorder's own (exec, signal), the
// command's captured output (stdout, stderr), a marker (mark) or an imported log
// line (log, with the log_source it came from).
struct EventRow {
  int64_t t_ms = 0;
  std::string kind;
  std::optional<int64_t> process_id;
  std::string text;
  std::optional<int64_t> source_id = std::nullopt;  // a LogSourceRow id, for imported lines
  int64_t id = 0;                    // rowid, set by the reader
};

// One imported log file.
struct LogSourceRow {
  int64_t id = 0;
  std::string name;    // the path as the user gave it
  std::string format;  // "cutelooker", "cmake-trace", "lines", "jsonl"
  int64_t added_ms = 0;
  int64_t events = 0;
  int64_t outside_span = 0;  // events before the recording's start or after its end
  std::string content_sha256 = "";  // of the file's bytes; empty for logs added before canopy kept it
};

}  // namespace canopy::store
