// The process tree's figures per subtree: the highest simultaneous resident memory of a
// process and all its descendants, and their CPU time. Apart from timeline.cpp because
// it is the one computation over the tree rather than over time.
#include <algorithm>
#include <unordered_map>

#include "analyze/process_figures.h"
#include "analyze/timeline.h"

namespace canopy::analyze {

void Timeline::compute_subtrees() {
  size_t n = processes_.size();
  subtrees_.assign(n, Subtree{});
  std::unordered_map<int64_t, size_t> index_of;
  for (size_t i = 0; i < n; ++i) {
    index_of[processes_[i].id] = i;
  }
  std::vector<ptrdiff_t> parent(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (auto p = processes_[i].parent_id; p && index_of.count(*p) && index_of[*p] != i) {
      parent[i] = static_cast<ptrdiff_t>(index_of[*p]);
    }
  }
  // Calls `visit` for a process and each of its ancestors; a corrupt file could hold a
  // cycle, so the walk stops after n steps.
  auto for_self_and_ancestors = [&](size_t i, auto&& visit) {
    ptrdiff_t a = static_cast<ptrdiff_t>(i);
    for (size_t steps = 0; a >= 0 && steps <= n; ++steps, a = parent[a]) {
      visit(static_cast<size_t>(a));
    }
  };

  for (size_t i = 0; i < n; ++i) {
    const auto& row = processes_[i];
    int64_t cpu = row.cpu_user_ns.value_or(0) + row.cpu_system_ns.value_or(0);
    if (!row.cpu_user_ns && !tracks_[i].changes.empty()) {
      cpu = tracks_[i].changes.back().cpu_ns;  // still running when the recording ended
    }
    for_self_and_ancestors(i, [&](size_t a) { subtrees_[a].cpu_ns += cpu; });
  }

  // Sweep the ticks in order, applying each process's resident-memory steps to it and
  // its ancestors; a subtree's peak is its sum after all steps of a tick.
  struct Step {
    uint32_t tick;
    uint32_t process;
    int64_t delta_kib;
  };
  // Each process's steps, placed by tick with a counting sort (there are as many as
  // sample rows: millions in a long recording).
  auto for_each_step = [&](auto&& emit) {
    for (size_t i = 0; i < n; ++i) {
      const Track& track = tracks_[i];
      int64_t level = 0;
      for (const Change& c : track.changes) {
        if (c.tick < track.first || c.tick > track.last) {
          continue;
        }
        int64_t v = static_cast<int64_t>(c.anon_kib) + c.file_kib + c.shmem_kib;
        if (v != level) {
          emit(Step{c.tick, static_cast<uint32_t>(i), v - level});
        }
        level = v;
      }
      if (track.first <= track.last && level != 0) {
        emit(Step{track.last + 1, static_cast<uint32_t>(i), -level});
      }
    }
  };
  std::vector<size_t> start(t_ms_.size() + 2, 0);
  for_each_step([&](const Step& step) { ++start[step.tick + 1]; });
  for (size_t i = 1; i < start.size(); ++i) {
    start[i] += start[i - 1];
  }
  std::vector<Step> steps(start.back());
  for_each_step([&](const Step& step) { steps[start[step.tick]++] = step; });
  std::vector<int64_t> sum_kib(n, 0);
  std::vector<int64_t> peak_kib(n, 0);
  std::vector<size_t> touched;
  for (size_t s = 0; s < steps.size();) {
    uint32_t tick = steps[s].tick;
    touched.clear();
    for (; s < steps.size() && steps[s].tick == tick; ++s) {
      for_self_and_ancestors(steps[s].process, [&](size_t a) {
        sum_kib[a] += steps[s].delta_kib;
        touched.push_back(a);
      });
    }
    if (tick >= t_ms_.size()) {
      continue;  // the steps after the last tick only take processes away
    }
    for (size_t a : touched) {
      if (sum_kib[a] > peak_kib[a]) {
        peak_kib[a] = sum_kib[a];
        subtrees_[a].peak_rss_bytes = sum_kib[a] * 1024;
        subtrees_[a].peak_t_ms = t_ms_[tick];
      }
    }
  }

  // Each process's own peak is a floor for its subtree's and its ancestors' peaks: they
  // held at least that much when it did. A peak a tick saw is in that tick's sums
  // already; one no tick saw raises them: a process too brief to sample, known by its
  // exit record or by the sample taken as it exited, or one that peaked between ticks.
  for (size_t i = 0; i < n; ++i) {
    ProcessPeak peak = process_peak(processes_[i], 0);
    for_self_and_ancestors(i, [&](size_t a) {
      if (peak.peak_rss_bytes > subtrees_[a].peak_rss_bytes) {
        subtrees_[a].peak_rss_bytes = peak.peak_rss_bytes;
        subtrees_[a].peak_t_ms = peak.peak_t_ms;
        subtrees_[a].peak_is_floor = true;
      }
    });
  }
}

}  // namespace canopy::analyze
