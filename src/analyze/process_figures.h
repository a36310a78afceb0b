// A process's peak and CPU time as every reader shows them (report, diff, budgets, the
// viewer): the recorder's figures, else its samples', and the kernel's high-water mark
// (its exit record, or VmHWM) where that is higher than any sample.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::analyze {

struct ProcessPeak {
  int64_t process_id = 0;
  int64_t pid = 0;  // as store::ProcessRow: imported Windows PIDs exceed pid_t
  std::string name;
  int64_t peak_rss_bytes = 0;
  int64_t peak_t_ms = 0;  // since the recording's start
  int64_t cpu_ns = 0;
  // The kernel's exit record held a higher peak than any sample saw (a process too
  // brief to sample, or one killed at its peak): reached at some time before
  // peak_t_ms, its end.
  bool peak_from_exit_record = false;
  // Gone before canopy could read its own name: the exit record's (store::ProcessRow).
  bool named_from_exit_record = false;
  // Filled by the summary for the processes it shows, not by process_peak.
  std::vector<std::string> cmdline = {};
};

// A process's peak: its highest sample, or its exit record's when that is higher.
ProcessPeak process_peak(const store::ProcessRow& p, int64_t start_ms);

// The command line of the process whose row id is `process_id` (ProcessPeak's cmdline,
// for those a report names); empty when `processes` has no such row.
std::vector<std::string> cmdline_of(const std::vector<store::ProcessRow>& processes, int64_t process_id);

// A recorder killed mid-run wrote peaks and CPU only for the processes that had ended
// (and one still running has not written them yet): these lack them, and take them
// from their samples (take_sample_figures).
bool lacks_figures(const store::ProcessRow& p);

// What a process's samples say of its peak and CPU.
struct SampleFigures {
  bool sampled = false;
  std::optional<int64_t> peak_rss_bytes;  // the highest, the earliest of equal ones
  int64_t peak_rss_t_ms = 0;
  int64_t cpu_user_ns = 0;  // cumulative: the latest sample's
  int64_t cpu_system_ns = 0;
};
// One sample, in time order.
void take_sample(SampleFigures& figures, int64_t t_ms, const store::SampleValues& v);
// A row that lacks_figures takes its samples' (when it has any): the higher of its own
// peak and theirs, and their CPU.
void take_sample_figures(store::ProcessRow& p, const SampleFigures& figures);

// The recording's processes, with peaks and CPU derived from their samples where the
// recorder could not write them.
Result<std::vector<store::ProcessRow>> processes_with_figures(const store::Reader& reader);

}  // namespace canopy::analyze
