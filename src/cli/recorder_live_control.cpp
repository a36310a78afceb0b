#include "cli/recorder_live_control.h"

#include <limits>

namespace canopy::cli {
namespace {

// A PID from the page as the kernel's type; one that cannot be a pid_t is not a live
// process of any tree.
Result<pid_t> as_pid(int64_t pid) {
  if (pid <= 0 || pid > std::numeric_limits<pid_t>::max()) {
    return Error{"process " + std::to_string(pid) + " is not a live process of the recorded tree"};
  }
  return static_cast<pid_t>(pid);
}

}  // namespace

Status RecorderLiveControl::set_heap_sampling(int64_t pid, bool on) {
  ASSIGN_OR_RETURN(pid_t process, as_pid(pid));
  return profilers_.set_heap_sampling(process, on);
}

Status RecorderLiveControl::take_heap_snapshot(int64_t pid) {
  ASSIGN_OR_RETURN(pid_t process, as_pid(pid));
  return profilers_.take_heap_snapshot(process);
}

Result<nlohmann::json> RecorderLiveControl::take_memory_map(int64_t pid) {
  ASSIGN_OR_RETURN(pid_t process, as_pid(pid));
  ASSIGN_OR_RETURN(record::MemoryMapSnapshot snapshot, profilers_.take_memory_map(process));
  return memory_map_json(snapshot);
}

nlohmann::json RecorderLiveControl::profiler_states() {
  nlohmann::json states = nlohmann::json::array();
  for (const record::ProfilerState& state : profilers_.states()) {
    states.push_back({{"pid", state.pid},
                      {"name", state.name},
                      {"heap", record::heap_state_name(state.heap)},
                      {"cpu", state.cpu_profile ? "on" : "off"}});
  }
  return states;
}

nlohmann::json memory_map_json(const record::MemoryMapSnapshot& snapshot) {
  nlohmann::json groups = nlohmann::json::array();
  for (const probe::MappingGroup& group : snapshot.groups) {
    groups.push_back({{"kind", probe::mapping_kind_name(group.kind)},
                      {"mappings", group.mappings},
                      {"size_bytes", group.size_bytes},
                      {"rss_bytes", group.rss_bytes},
                      {"pss_bytes", group.pss_bytes},
                      {"anonymous_bytes", group.anonymous_bytes},
                      {"swap_bytes", group.swap_bytes}});
  }
  return {{"pid", snapshot.pid}, {"t_ms", snapshot.t_ms}, {"groups", groups}};
}

}  // namespace canopy::cli
