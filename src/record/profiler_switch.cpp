#include "record/profiler_switch.h"

#include <algorithm>
#include <chrono>
#include <unordered_set>

#include "common/text.h"
#include "probe/running_tree.h"
#include "record/heap_control.h"
#include "record/heap_profiling.h"

namespace canopy::record {

const char* heap_state_name(HeapState state) {
  switch (state) {
    case HeapState::kNotLoaded:
      return "not loaded";
    case HeapState::kSamplingOn:
      return "on";
    case HeapState::kSamplingOff:
      return "off";
  }
  return "not loaded";
}

ProfilerSwitch::ProfilerSwitch(ProfilerSwitchOptions options) : options_(std::move(options)) {}

Result<std::string> ProfilerSwitch::live_name(pid_t pid) {
  for (const TreeProcess& process : options_.live_processes()) {
    if (process.pid == pid) {
      return process.name;
    }
  }
  return Error{"process " + std::to_string(pid) + " is not a live process of the recorded tree"};
}

bool ProfilerSwitch::heap_library_loaded(pid_t pid) const {
  auto mappings = probe::read_executable_mappings(pid, options_.proc_root);
  if (!mappings) {
    return false;
  }
  return std::any_of(mappings->begin(), mappings->end(), [](const probe::ExecutableMapping& mapping) {
    return path_base_name(mapping.path) == kHeapLibraryFile;
  });
}

Status ProfilerSwitch::require_heap_profiler(pid_t pid) {
  RETURN_IF_ERROR(live_name(pid));
  if (!options_.heap_profile) {
    return Error{"process " + std::to_string(pid) + " has no heap profiler: the recording was started without --heap"};
  }
  if (!heap_library_loaded(pid)) {
    return Error{"process " + std::to_string(pid) +
                 " has no heap profiler loaded (a static or setuid program, or one that cleared LD_PRELOAD)"};
  }
  return Ok{};
}

Status ProfilerSwitch::set_heap_sampling(pid_t pid, bool on) {
  RETURN_IF_ERROR(require_heap_profiler(pid));
  RETURN_IF_ERROR(send_heap_command(pid, on ? HeapCommand::kSamplingOn : HeapCommand::kSamplingOff));
  std::lock_guard lock(mutex_);
  sampling_set_[pid] = on;
  return Ok{};
}

Status ProfilerSwitch::take_heap_snapshot(pid_t pid) {
  RETURN_IF_ERROR(require_heap_profiler(pid));
  return send_heap_command(pid, HeapCommand::kDump);
}

Result<MemoryMapSnapshot> ProfilerSwitch::take_memory_map(pid_t pid) {
  RETURN_IF_ERROR(live_name(pid));
  auto groups = probe::read_memory_map(pid, options_.proc_root);
  if (!groups) {
    return Error{"process " + std::to_string(pid) + " ended before its memory map was read"};
  }
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return MemoryMapSnapshot{pid, std::chrono::duration_cast<std::chrono::milliseconds>(now).count(),
                           std::move(*groups)};
}

std::vector<ProfilerState> ProfilerSwitch::states() {
  std::vector<TreeProcess> live = options_.live_processes();
  std::vector<ProfilerState> states;
  std::lock_guard lock(mutex_);
  std::unordered_set<pid_t> live_pids;
  for (const TreeProcess& process : live) {
    live_pids.insert(process.pid);
    ProfilerState state{process.pid, process.name, HeapState::kNotLoaded, options_.cpu_profile};
    if (options_.heap_profile && heap_library_loaded(process.pid)) {
      auto set = sampling_set_.find(process.pid);
      bool on = set != sampling_set_.end() ? set->second : options_.heap_sampling_at_start;
      state.heap = on ? HeapState::kSamplingOn : HeapState::kSamplingOff;
    }
    states.push_back(std::move(state));
  }
  std::erase_if(sampling_set_, [&](const auto& entry) { return !live_pids.contains(entry.first); });
  return states;
}

}  // namespace canopy::record
