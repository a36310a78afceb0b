#include "record/command_cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "common/text.h"

namespace canopy::record {
namespace {

constexpr int64_t kCpuPeriodUs = 100'000;

Status write_file(const std::string& path, const std::string& text) {
  ScopedFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd || ::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return Error{path + ": " + std::strerror(errno)};
  }
  return Ok{};
}

std::string join(const std::string& parent, const std::string& child) {
  if (child.empty()) {
    return parent;
  }
  return parent.back() == '/' ? parent + child : parent + "/" + child;
}

std::string our_name() { return "canopy-" + std::to_string(::getpid()); }

// A canopy killed with SIGKILL cannot remove its cgroup: the next run removes the
// empty ones whose recorder is gone.
void remove_stale_siblings(const std::string& parent) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(parent, error)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("canopy-", 0) != 0) {
      continue;
    }
    auto pid = parse_int<pid_t>(std::string_view(name).substr(7));
    if (pid && ::kill(*pid, 0) != 0 && errno == ESRCH) {
      ::rmdir(entry.path().c_str());  // fails harmlessly when not empty
    }
  }
}

bool has_controllers(const std::string& subtree_control, const std::vector<const char*>& needed) {
  for (const char* controller : needed) {
    bool found = false;
    std::string_view text = subtree_control;
    for (std::string_view field = next_field(text); !field.empty(); field = next_field(text)) {
      found = found || field == controller;
    }
    if (!found) {
      return false;
    }
  }
  return true;
}

std::string parent_path(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

}  // namespace

Result<CommandCgroup> CommandCgroup::create(const ResourceLimits& limits) {
  auto mounts = probe::read_small_file("/proc/self/mounts");
  auto self = probe::read_small_file("/proc/self/cgroup");
  if (!mounts || !self) {
    return Error{"cannot read /proc/self/mounts and /proc/self/cgroup"};
  }
  return create(limits, *mounts, *self);
}

Result<CommandCgroup> CommandCgroup::create(const ResourceLimits& limits, const std::string& mounts,
                                            const std::string& self) {
  auto v2 = create_v2(limits, mounts, self);
  if (v2) {
    return v2;
  }
  auto v1 = create_v1(limits, mounts, self);
  if (v1) {
    return v1;
  }
  return Error{"cgroup v2: " + v2.error().message + "; cgroup v1: " + v1.error().message};
}

Result<CommandCgroup> CommandCgroup::create_v2(const ResourceLimits& limits, const std::string& mounts,
                                               const std::string& self) {
  auto mount = probe::cgroup_v2_mount(mounts);
  auto own = probe::cgroup_v2_path(self);
  if (!mount || !own) {
    return Error{"not mounted"};
  }
  std::vector<const char*> needed{"memory"};
  if (limits.cpu_percent || limits.cpu_time_ms) {
    needed.push_back("cpu");
  }
  if (limits.max_processes) {
    needed.push_back("pids");
  }
  // Our own cgroup cannot have controllers for children while we are in it (the
  // no-internal-process rule), so the nearest ancestor that delegates them holds ours.
  std::string last_error = join(*mount, own->substr(1)) + " and its parents do not delegate the memory controller";
  for (std::string candidate = *own;; candidate = parent_path(candidate)) {
    std::string parent = join(*mount, candidate.substr(1));
    auto subtree = probe::read_small_file(join(parent, "cgroup.subtree_control"));
    if (subtree && has_controllers(*subtree, needed)) {
      remove_stale_siblings(parent);
      std::string path = join(parent, our_name());
      if (::mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) {
        CommandCgroup cgroup;
        cgroup.version_ = 2;
        cgroup.directories_.push_back({path, join(*mount, own->substr(1))});
        cgroup.cpu_directory_ = path;
        cgroup.clone_fd_ = ScopedFd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        cgroup.description_ = "cgroup v2 " + path.substr(mount->size());
        auto set = [&](const char* file, const std::string& value) { return write_file(join(path, file), value); };
        Status status = Ok{};
        if (limits.memory_bytes) {
          status = set("memory.max", std::to_string(*limits.memory_bytes));
          // Without swap accounting the file is missing; then only an explicit
          // --swap-limit is an error.
          std::string swap_max = join(path, "memory.swap.max");
          if (status && (limits.swap_bytes || ::access(swap_max.c_str(), W_OK) == 0)) {
            status = set("memory.swap.max", std::to_string(limits.swap_bytes.value_or(0)));
          }
        }
        if (status && limits.cpu_percent) {
          auto quota = static_cast<int64_t>(*limits.cpu_percent * kCpuPeriodUs / 100);
          status = set("cpu.max", std::to_string(std::max<int64_t>(quota, 1000)) + " " + std::to_string(kCpuPeriodUs));
        }
        if (status && limits.max_processes) {
          status = set("pids.max", std::to_string(*limits.max_processes));
        }
        if (!status) {
          return Error{"cannot set a limit: " + status.error().message};  // ~CommandCgroup removes it
        }
        cgroup.limited_ = limits.any();
        cgroup.open_counters(limits);
        return cgroup;
      }
      last_error = path + ": " + std::strerror(errno);
    }
    if (candidate == "/") {
      return Error{last_error};
    }
  }
}

Result<CommandCgroup> CommandCgroup::create_v1(const ResourceLimits& limits, const std::string& mounts,
                                               const std::string& self) {
  CommandCgroup cgroup;
  cgroup.version_ = 1;
  // cpuacct gives the tree's CPU counter and freezer a kill nothing escapes, so both are
  // joined where mounted; cpu and pids only carry their limits. Each hierarchy joined
  // costs a mkdir, a move and an rmdir (about 0.35 M kernel instructions for the two).
  struct Want {
    const char* controller;
    bool wanted;
    bool required;
  } wants[] = {{"memory", true, true},
               {"cpuacct", true, limits.cpu_time_ms.has_value()},
               {"cpu", limits.cpu_percent.has_value(), limits.cpu_percent.has_value()},
               {"pids", limits.max_processes.has_value(), limits.max_processes.has_value()},
               {"freezer", true, false}};
  std::string controllers;
  for (const auto& want : wants) {
    if (!want.wanted) {
      continue;
    }
    auto mount = probe::cgroup_v1_mount(mounts, want.controller);
    auto own = probe::cgroup_v1_path(self, want.controller);
    if (!mount || !own) {
      if (want.required) {
        return Error{std::string("no ") + want.controller + " hierarchy"};
      }
      continue;
    }
    std::string parent = join(*mount, own->substr(1));
    std::string path = join(parent, our_name());
    bool co_mounted = false;  // cpu and cpuacct often share one hierarchy
    for (const auto& directory : cgroup.directories_) {
      co_mounted = co_mounted || directory.path == path;
    }
    if (!co_mounted) {
      remove_stale_siblings(parent);
      if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
        if (want.required) {
          return Error{path + ": " + std::strerror(errno)};
        }
        continue;
      }
      cgroup.directories_.push_back({path, parent});
    }
    controllers += (controllers.empty() ? "" : ", ") + std::string(want.controller);
    if (std::string_view(want.controller) == "cpuacct") {
      cgroup.cpu_directory_ = path;
    } else if (std::string_view(want.controller) == "freezer") {
      cgroup.freezer_directory_ = path;
    }
    auto set = [&](const char* file, const std::string& value) { return write_file(join(path, file), value); };
    Status status = Ok{};
    if (std::string_view(want.controller) == "memory" && limits.memory_bytes) {
      status = set("memory.limit_in_bytes", std::to_string(*limits.memory_bytes));
      // memsw is memory plus swap; without swap accounting the file is missing, and
      // then only an explicit --swap-limit is an error.
      std::string memsw = join(path, "memory.memsw.limit_in_bytes");
      if (status && (limits.swap_bytes || ::access(memsw.c_str(), W_OK) == 0)) {
        status = set("memory.memsw.limit_in_bytes", std::to_string(*limits.memory_bytes + limits.swap_bytes.value_or(0)));
      }
    } else if (std::string_view(want.controller) == "cpu" && limits.cpu_percent) {
      auto quota = static_cast<int64_t>(*limits.cpu_percent * kCpuPeriodUs / 100);
      status = set("cpu.cfs_period_us", std::to_string(kCpuPeriodUs));
      if (status) {
        status = set("cpu.cfs_quota_us", std::to_string(std::max<int64_t>(quota, 1000)));
      }
    } else if (std::string_view(want.controller) == "pids" && limits.max_processes) {
      status = set("pids.max", std::to_string(*limits.max_processes));
    }
    if (!status) {
      return Error{"cannot set a limit: " + status.error().message};
    }
  }
  if (limits.swap_bytes && !limits.memory_bytes) {
    return Error{"--swap-limit needs --memory-limit on cgroup v1 (it limits memory plus swap)"};
  }
  cgroup.description_ = "cgroup v1 (" + controllers + ") " + cgroup.directories_.front().path;
  cgroup.limited_ = limits.any();
  cgroup.open_counters(limits);
  return cgroup;
}

void CommandCgroup::open_counters(const ResourceLimits& limits) {
  // A limit's hit counter moves only when that limit is set on this cgroup (one an
  // ancestor sets counts there): without it, it is not read on every tick for a 0.
  const std::string& memory = directories_.front().path;
  if (version_ == 2) {
    memory_current_ = probe::CgroupFile(join(memory, "memory.current"));
    memory_peak_ = probe::CgroupFile(join(memory, "memory.peak"));
    cpu_usage_ = probe::CgroupFile(join(memory, "cpu.stat"));
    cpu_members_ = probe::CgroupFile(join(memory, "cgroup.procs"));
    memory_events_ = probe::CgroupFile(join(memory, "memory.events"));  // OOM kills too
    if (limits.max_processes) {
      pids_events_ = probe::CgroupFile(join(memory, "pids.events"));
    }
    return;
  }
  memory_current_ = probe::CgroupFile(join(memory, "memory.usage_in_bytes"));
  memory_peak_ = probe::CgroupFile(join(memory, "memory.max_usage_in_bytes"));
  memory_events_ = probe::CgroupFile(join(memory, "memory.oom_control"));
  if (limits.memory_bytes) {
    memory_failcnt_ = probe::CgroupFile(join(memory, "memory.failcnt"));
    // With memory+swap limited too, that limit is the one charges fail against.
    memsw_failcnt_ = probe::CgroupFile(join(memory, "memory.memsw.failcnt"));
  }
  if (!cpu_directory_.empty()) {
    cpu_usage_ = probe::CgroupFile(join(cpu_directory_, "cpuacct.usage"));
    cpu_members_ = probe::CgroupFile(join(cpu_directory_, "cgroup.procs"));
  }
  for (const auto& directory : directories_) {
    if (limits.max_processes && ::access(join(directory.path, "pids.events").c_str(), R_OK) == 0) {
      pids_events_ = probe::CgroupFile(join(directory.path, "pids.events"));
    }
  }
}

CommandCgroup::~CommandCgroup() {
  if (directories_.empty()) {
    return;  // moved from
  }
  if (!members().empty()) {
    if (limited_) {
      kill_all();
    } else {
      release_members();
    }
  }
  // A killed process leaves the cgroup as it exits, a moment after the signal.
  for (int attempt = 0; attempt < 100; ++attempt) {
    bool all_removed = true;
    for (const auto& directory : directories_) {
      all_removed = (::rmdir(directory.path.c_str()) == 0 || errno == ENOENT) && all_removed;
    }
    if (all_removed) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Status CommandCgroup::add(pid_t pid) {
  for (const auto& directory : directories_) {
    if (auto status = write_file(join(directory.path, "cgroup.procs"), std::to_string(pid)); !status) {
      return Error{"cannot move the command into its cgroup: " + status.error().message};
    }
  }
  return Ok{};
}

std::optional<int64_t> CommandCgroup::memory_bytes() const {
  auto current = memory_current_.read();
  if (!current) {
    return std::nullopt;
  }
  return probe::single_value(*current).value_or(0);
}

void CommandCgroup::read_counters(CgroupReading& reading) const {
  reading.memory_peak_bytes.reset();
  if (auto peak = memory_peak_.read()) {
    reading.memory_peak_bytes = probe::single_value(*peak);
  }
  reading.oom_kills = 0;
  reading.memory_limit_hits = 0;
  if (auto events = memory_events_.read()) {
    reading.oom_kills = probe::flat_key_value(*events, "oom_kill").value_or(0);
    if (version_ == 2) {
      reading.memory_limit_hits = probe::flat_key_value(*events, "max").value_or(0);
    }
  }
  for (const auto* failcnt : {&memory_failcnt_, &memsw_failcnt_}) {
    if (auto text = failcnt->read()) {
      reading.memory_limit_hits += probe::single_value(*text).value_or(0);
    }
  }
  reading.pids_limit_hits = 0;
  if (auto pids = pids_events_.read()) {
    reading.pids_limit_hits = probe::flat_key_value(*pids, "max").value_or(0);
  }
}

std::optional<int64_t> CommandCgroup::tree_cpu_ns() const {
  auto cpu = cpu_usage_.read();
  if (!cpu) {
    return std::nullopt;
  }
  if (version_ == 2) {
    auto usec = probe::flat_key_value(*cpu, "usage_usec");
    return usec ? std::optional<int64_t>(*usec * 1000) : std::nullopt;
  }
  return probe::single_value(*cpu);
}

std::vector<pid_t> CommandCgroup::tree_cpu_members() const {
  auto text = cpu_members_.read();
  return text ? probe::pid_list(*text) : std::vector<pid_t>{};
}

std::vector<pid_t> CommandCgroup::members() const {
  auto text = probe::read_small_file(join(directories_.front().path, "cgroup.procs"));
  return text ? probe::pid_list(*text) : std::vector<pid_t>{};
}

void CommandCgroup::signal_all(int signal) const {
  for (pid_t pid : members()) {
    ::kill(pid, signal);
  }
}

void CommandCgroup::kill_all() const {
  const std::string& directory = directories_.front().path;
  if (version_ == 2 && write_file(join(directory, "cgroup.kill"), "1")) {
    // The kernel kills every member, forks in flight included (5.14+).
  } else if (!freezer_directory_.empty()) {
    // Frozen, nothing can fork between our reading the members and killing them.
    write_file(join(freezer_directory_, "freezer.state"), "FROZEN").ok();
    signal_all(SIGKILL);
    write_file(join(freezer_directory_, "freezer.state"), "THAWED").ok();
  }
  for (int attempt = 0; attempt < 100 && !members().empty(); ++attempt) {
    signal_all(SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void CommandCgroup::release_members() const {
  for (pid_t pid : members()) {
    for (const auto& directory : directories_) {
      write_file(join(directory.parent, "cgroup.procs"), std::to_string(pid)).ok();
    }
  }
}

}  // namespace canopy::record
