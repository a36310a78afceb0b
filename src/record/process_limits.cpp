#include "record/process_limits.h"

#include <sched.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>

#include "common/text.h"

namespace canopy::record {
namespace {

Status set_limit(pid_t pid, int resource, rlim_t soft, rlim_t hard, const char* flag) {
  rlimit limit{soft, hard};
  if (::prlimit(pid, static_cast<__rlimit_resource>(resource), &limit, nullptr) != 0) {
    return Error{std::string(flag) + ": cannot set the rlimit: " + std::strerror(errno)};
  }
  return Ok{};
}

}  // namespace

Result<ProcessLimits> process_limits_without_cgroup(const ResourceLimits& limits,
                                                    const std::string& no_cgroup_reason) {
  for (auto [given, flag] : {std::pair{limits.cpu_percent.has_value(), "--cpu-limit"},
                             std::pair{limits.swap_bytes.has_value(), "--swap-limit"}}) {
    if (given) {
      return Error{std::string(flag) + " needs a cgroup, and " + no_cgroup_reason};
    }
  }
  auto process = process_limits_with_cgroup(limits);
  if (!process) {
    return process;
  }
  process->cpu_time_ms = limits.cpu_time_ms;
  process->max_processes = limits.max_processes;
  process->address_space_bytes = limits.memory_bytes;
  return process;
}

Result<ProcessLimits> process_limits_with_cgroup(const ResourceLimits& limits) {
  ProcessLimits process;
  process.nice = limits.nice;
  if (limits.cpus) {  // "" too: it names no CPU
    ASSIGN_OR_RETURN(auto cpus, parse_cpu_list(*limits.cpus));
    process.cpus = std::move(cpus);
  }
  return process;
}

Result<std::vector<int>> parse_cpu_list(std::string_view list) {
  const std::string given(list);
  auto bad = [&](const std::string& why) { return Error{"--cpus '" + given + "': " + why}; };
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    return bad(std::string("cannot read our own affinity: ") + std::strerror(errno));
  }
  std::vector<int> cpus;
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    size_t dash = item.find('-');
    auto first = parse_int<int>(item.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : parse_int<int>(item.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first) {
      return bad("expected CPU numbers and ranges such as 0,2-3");
    }
    for (int cpu = *first; cpu <= *last; ++cpu) {
      if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) {
        return bad("CPU " + std::to_string(cpu) + " is not one this process may use");
      }
      cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) {
    return bad("no CPU given");
  }
  return cpus;
}

Status apply_process_limits(pid_t pid, const ProcessLimits& limits) {
  if (limits.nice && ::setpriority(PRIO_PROCESS, static_cast<id_t>(pid), *limits.nice) != 0) {
    return Error{"--nice " + std::to_string(*limits.nice) + ": " + std::strerror(errno) +
                 (errno == EACCES ? " (lowering niceness needs CAP_SYS_NICE)" : "")};
  }
  if (!limits.cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : limits.cpus) {
      CPU_SET(cpu, &set);
    }
    if (::sched_setaffinity(pid, sizeof set, &set) != 0) {
      return Error{std::string("--cpus: cannot set the affinity: ") + std::strerror(errno)};
    }
  }
  if (limits.cpu_time_ms) {
    // SIGXCPU at the limit (a process may catch it and save its work), SIGKILL a
    // second later.
    auto seconds = static_cast<rlim_t>((*limits.cpu_time_ms + 999) / 1000);
    if (auto status = set_limit(pid, RLIMIT_CPU, seconds, seconds + 1, "--cpu-time"); !status) {
      return status;
    }
  }
  if (limits.max_processes) {
    auto count = static_cast<rlim_t>(*limits.max_processes);
    if (auto status = set_limit(pid, RLIMIT_NPROC, count, count, "--max-processes"); !status) {
      return status;
    }
  }
  if (limits.address_space_bytes) {
    auto bytes = static_cast<rlim_t>(*limits.address_space_bytes);
    if (auto status = set_limit(pid, RLIMIT_AS, bytes, bytes, "--memory-limit"); !status) {
      return status;
    }
  }
  return Ok{};
}

}  // namespace canopy::record
