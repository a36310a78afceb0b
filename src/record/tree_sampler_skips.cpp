// Whether a tick can skip reads, asked once a tick: whether the kernel may have moved
// the memory of processes that did not run (vmstat), and whether any process of the
// tree ran at all (its cgroup's CPU counter). Sampling and ticks are in
// tree_sampler.cpp.
#include "record/tree_sampler.h"

#include <algorithm>

namespace canopy::record {

bool TreeSampler::kernel_may_have_moved_memory() {
  if (alive_.size() < kVmstatWorthFromProcesses) {
    return true;  // reading each one's statm costs less than reading vmstat
  }
  if (!kernel_moved_memory_) {
    // Compared with the previous reading, which may be some ticks old: changes since
    // then all count, so an idle process is never skipped past a reclaim.
    auto text = vmstat_.read();
    auto moves = text ? probe::parse_vmstat_memory_moves(*text) : std::nullopt;
    kernel_moved_memory_ = !moves || !last_memory_moves_ || *moves != *last_memory_moves_;
    last_memory_moves_ = moves;
  }
  return *kernel_moved_memory_;
}

bool TreeSampler::tree_stood_still(int64_t t_ms) {
  if (!options_.tree_cpu) {
    return false;
  }
  // v2 counts in microseconds: a tree that ran under one between two ticks can read
  // as still. Its figures then come a tick late, as if it had run just after this one.
  std::optional<int64_t> cpu_ns = options_.tree_cpu->tree_cpu_ns();
  const bool moved = !cpu_ns || !last_tree_cpu_ns_ || *cpu_ns != *last_tree_cpu_ns_;
  last_tree_cpu_ns_ = cpu_ns;
  last_tree_cpu_ms_ = t_ms;
  if (moved) {
    return false;
  }
  // A process leaves the cgroup only when someone moves it: a rarer outside hand,
  // caught within a second like the memory of processes that did not run. (Reading
  // the members every tick would cost most of what the counter saves.) A child is
  // born in its parent's cgroup, so the processes tracked since are covered.
  if (t_ms - last_members_check_ms_ >= kStatmAtLeastEveryMs) {
    last_members_check_ms_ = t_ms;
    std::vector<pid_t> members = options_.tree_cpu->tree_cpu_members();
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    all_members_ = std::all_of(alive_.begin(), alive_.end(), [&](const auto& entry) {
      return entry.second.exited || std::binary_search(members.begin(), members.end(), entry.first);
    });
  }
  return all_members_;
}

}  // namespace canopy::record
