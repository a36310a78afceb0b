// The CPU profile of a recording (record --cpu-profile) as `canopy profile` and the CPU
// exports take it: the samples of the processes and time range asked for, and the
// functions they were in, by self samples (the function was running) and total
// samples (it was on the stack). A sample stands for 1/HZ s of one thread's CPU time:
// shares are exact only as the sample count grows (see docs/cpu-profile.md).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::analyze {

// Every member has an initializer, so that `{.pid = 7}` names only what it sets.
struct CpuSampleFilter {
  int64_t pid = 0;           // only this PID's samples; 0: every process
  std::string command = "";  // only processes of this name or executable file name; "": every one
  // Offsets from the recording's start, in ms; empty: its start, its end.
  std::optional<int64_t> from_ms = std::nullopt;
  std::optional<int64_t> to_ms = std::nullopt;
};

struct CpuSelectedProcess {
  int64_t pid = 0;
  std::string command;  // the name of its process (after its last exec); "" when unknown
  std::string exe;
  std::vector<std::string> cmdline;
};

struct CpuSelection {
  store::CpuProfile profile;
  std::vector<store::CpuSampleRow> samples;          // those asked for, in the recorded order
  std::map<int64_t, CpuSelectedProcess> processes;   // by pid, of the samples asked for
  int64_t samples_in_recording = 0;
};

// Which process of the recording took each sample. The recorder names a sample's
// process when its sampler still knew it as the sample was read; a process that ended
// before (a compiler run shorter than a tick) is found by its PID and the sample's time
// within its life. Points into `processes`, which must outlive it.
class CpuSampleProcesses {
 public:
  explicit CpuSampleProcesses(const std::vector<store::ProcessRow>& processes);
  // Null when no process of the recording fits.
  const store::ProcessRow* of(const store::CpuSampleRow& row) const;

 private:
  const std::vector<store::ProcessRow>& processes_;
  std::unordered_map<int64_t, std::vector<const store::ProcessRow*>> by_pid_;
};

// One line naming the recording when it has no CPU profile ("record with
// --cpu-profile", or why the kernel refused it), or when no sample is of the PID,
// command or time range asked for (with what there is instead).
Result<CpuSelection> select_cpu_samples(const store::Reader& reader, const CpuSampleFilter& filter);

// The names of one recorded frame (heap_frame's id), innermost first: the functions
// inlined at it, then the one it is in. symbolize/ gives them; analyze/ does not link it.
using CpuFrameNames = std::function<std::vector<std::string>(int64_t frame_id)>;

struct CpuFunction {
  std::string name;
  int64_t self_samples = 0;   // samples taken in it (the innermost frame, inlined ones first)
  int64_t total_samples = 0;  // samples with it anywhere on the stack (counted once per sample)
  // "? (OBJECT)": the code of OBJECT that no symbol covers, all its functions under one
  // name. Its self samples say how much ran there; its total, the stacks that pass
  // through any of them, is no one function's, so it is not ranked by total.
  bool unnamed_code = false;
};

// Whether a frame name is "? (OBJECT)" (symbolize/cpu_frame_names.cpp), as against one
// unnamed frame, "? (OBJECT+0xADDR (why))", "? (0xADDR)", or one line, "? (FILE:LINE)".
bool names_unnamed_code_of_object(const std::string& name);

// One process, or every process merged (pid 0).
struct CpuGroup {
  int64_t pid = 0;
  std::string command;
  std::vector<std::string> cmdline;  // of the PID's process
  int64_t samples = 0;
  // At most `top` each, ties broken by the other count; by_self holds only functions
  // that ran themselves.
  std::vector<CpuFunction> by_self;   // most self samples first
  std::vector<CpuFunction> by_total;  // most total samples first
};

struct CpuProfileSummary {
  std::string sampling;  // the recording's meta: "99 Hz, user time only ..."
  int64_t samples_lost = 0;
  int64_t samples = 0;   // selected
  // Of them, those whose innermost frame lies in no loaded object and no perf map's
  // module: JIT code (most likely) that names itself nowhere canopy reads.
  int64_t samples_outside_objects = 0;
  int64_t from_ms = 0;   // offsets from the recording's start of the range looked at
  int64_t to_ms = 0;
  std::string command;  // the filter's: the merged group is the processes of this name
  // Merged: one (pid 0), or the PID's alone when the filter names one; per process: by
  // samples, most first.
  std::vector<CpuGroup> groups;
};

CpuProfileSummary summarize_cpu(const store::Reader& reader, const CpuSelection& selection,
                                const CpuSampleFilter& filter, const CpuFrameNames& names, bool per_process,
                                size_t top);

// The functions of each stack, outermost first, as names() gives them: what the
// collapsed export and the summary both walk.
std::vector<std::string> cpu_stack_functions(const store::CpuProfile& profile, int64_t stack_id,
                                             const CpuFrameNames& names);

}  // namespace canopy::analyze
