// What the live page may change in a recording being made (record --serve): the heap
// profiler's sampling and snapshots in one process of the tree, through the same
// command path as `canopy heap on|off|dump PID` (heap_control.h), and a memory-map
// snapshot read from /proc/PID/smaps. Every request names a PID, refused in one line
// unless it is a live process of the recorded tree. cli/recorder_live_control.h hands
// it to the viewer's server.
#pragma once

#include <sys/types.h>

#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "probe/memory_map.h"

namespace canopy::record {

struct TreeProcess {
  pid_t pid = 0;
  std::string name;
};

enum class HeapState { kNotLoaded, kSamplingOn, kSamplingOff };
const char* heap_state_name(HeapState state);

struct ProfilerState {
  pid_t pid = 0;
  std::string name;
  HeapState heap = HeapState::kNotLoaded;
  bool cpu_profile = false;  // record --cpu-profile: the whole tree, for the whole recording
};

struct MemoryMapSnapshot {
  pid_t pid = 0;
  int64_t t_ms = 0;  // since the Unix epoch
  std::vector<probe::MappingGroup> groups;
};

struct ProfilerSwitchOptions {
  // The tree's live processes as the recorder knows them, asked at each request (the
  // recorder's own lock is its business).
  std::function<std::vector<TreeProcess>()> live_processes;
  bool heap_profile = false;           // record --heap
  bool heap_sampling_at_start = true;  // false for --heap=off
  bool cpu_profile = false;            // record --cpu-profile
  std::string proc_root = "/proc";
};

class ProfilerSwitch {
 public:
  explicit ProfilerSwitch(ProfilerSwitchOptions options);

  Status set_heap_sampling(pid_t pid, bool on);
  // The snapshot is taken by the process's own profiler thread and reaches the
  // recording within its next commit.
  Status take_heap_snapshot(pid_t pid);
  // Shown, not stored: see docs/viewer.md (the switch).
  Result<MemoryMapSnapshot> take_memory_map(pid_t pid);
  // Each live process, in the order the recorder lists them. The heap state is the one
  // this switch last set for the process, else the one the recording started with: a
  // `canopy heap on|off` from the terminal is not seen here.
  std::vector<ProfilerState> states();

 private:
  // The process's name; an error naming the PID when it is not a live process of the
  // tree.
  Result<std::string> live_name(pid_t pid);
  Status require_heap_profiler(pid_t pid);
  bool heap_library_loaded(pid_t pid) const;

  ProfilerSwitchOptions options_;
  std::mutex mutex_;
  // What this switch set, by PID; dropped when the PID is no longer live, so that a
  // reused PID starts from the recording's start state.
  std::unordered_map<pid_t, bool> sampling_set_;
};

}  // namespace canopy::record
