// What a recording's meta table says, typed: one field per key, so that no caller
// spells a key. Every field may be absent: a recording written by an older canopy, an
// import or a test has fewer keys, and one whose recorder was killed has no end.
// The key of each field is its name (meta.cpp holds the one list of them); values are
// stored as text, numbers in decimal and the command as a JSON array.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace canopy::store {

// Every field defaults to absent, so `{.start_ms = t}` sets one key alone.
struct RecordingMeta {
  std::optional<int64_t> format_version = std::nullopt;  // kFormatVersion when written

  // The recorder and its machine, from the start.
  std::optional<std::string> canopy_version = std::nullopt;
  std::optional<std::string> host = std::nullopt;
  std::optional<std::string> kernel = std::nullopt;
  std::optional<std::string> machine = std::nullopt;
  std::optional<int64_t> cpu_count = std::nullopt;
  std::optional<int64_t> page_size_bytes = std::nullopt;
  std::optional<int64_t> clock_ticks_per_second = std::nullopt;
  std::optional<std::string> timezone = std::nullopt;
  std::optional<int64_t> utc_offset_s = std::nullopt;

  // The run, from the start.
  std::optional<int64_t> start_ms = std::nullopt;
  std::optional<int64_t> interval_ms = std::nullopt;
  std::optional<std::string> mode = std::nullopt;  // "run", "attach" or "import"
  std::optional<int64_t> root_pid = std::nullopt;
  std::optional<int64_t> recorder_pid = std::nullopt;  // the canopy writing it: a viewer follows it while it lives
  std::optional<std::string> cwd = std::nullopt;
  std::optional<std::vector<std::string>> command = std::nullopt;
  std::optional<int64_t> pss_interval_ms = std::nullopt;  // only with --pss
  std::optional<std::string> probes = std::nullopt;       // "proc-stat,proc-statm,...": what it could see
  std::optional<std::string> source = std::nullopt;       // an import's format ("onlooker")
  std::optional<std::string> source_file = std::nullopt;  // an import's input
  std::optional<int64_t> imported_ms = std::nullopt;      // when the import was made

  // What the recorder watched, and how (descriptions for the report).
  std::optional<std::string> output_capture = std::nullopt;
  std::optional<std::string> process_events = std::nullopt;
  std::optional<std::string> process_events_filter = std::nullopt;
  std::optional<std::string> exit_records = std::nullopt;
  std::optional<std::string> cgroup = std::nullopt;
  // record --cpu-profile: "99 Hz, user and kernel time" or "off: why" (the kernel's refusal).
  std::optional<std::string> cpu_profile = std::nullopt;

  // At the end.
  std::optional<int64_t> end_ms = std::nullopt;  // absent: the recorder was killed
  std::optional<int64_t> processes = std::nullopt;
  std::optional<int64_t> exit_code = std::nullopt;
  std::optional<int64_t> exit_signal = std::nullopt;
  std::optional<int64_t> tree_cpu_user_ns = std::nullopt;  // the waited-for tree's, from getrusage
  std::optional<int64_t> tree_cpu_system_ns = std::nullopt;
  std::optional<int64_t> recorder_cpu_user_ns = std::nullopt;
  std::optional<int64_t> recorder_cpu_system_ns = std::nullopt;
  std::optional<int64_t> recorder_max_rss_bytes = std::nullopt;
  std::optional<int64_t> tree_stopped_ms = std::nullopt;  // when a limit stopped the tree
  std::optional<int64_t> process_events_received = std::nullopt;
  std::optional<int64_t> process_events_filtered = std::nullopt;
  std::optional<int64_t> process_events_lost = std::nullopt;
  std::optional<int64_t> exit_records_filtered = std::nullopt;
  std::optional<int64_t> exit_records_lost = std::nullopt;
  std::optional<int64_t> processes_with_exit_records = std::nullopt;
  std::optional<int64_t> machine_forks = std::nullopt;  // forks on the whole machine while recording
  std::optional<int64_t> cpu_samples_lost = std::nullopt;  // the kernel's count of samples its full rings dropped
};

// Writes every field of `meta` that is set under its key, replacing the value there;
// the keys of unset fields keep theirs. Within the caller's transaction, if any.
Status write_meta(sqlite3* db, const RecordingMeta& meta);

// The fields from the meta table's rows (key to text). A key this canopy does not
// know is ignored; a number that does not parse reads as absent.
RecordingMeta meta_from_rows(const std::map<std::string, std::string>& rows);

// The key a field is stored under ("start_ms"), for messages about its text.
const char* meta_key(std::optional<int64_t> RecordingMeta::*field);

}  // namespace canopy::store
