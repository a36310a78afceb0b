#include "analyze/summary.h"

#include <unistd.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include "analyze/recorder_alive.h"
#include "common/text.h"

namespace canopy::analyze {

Result<Summary> summarize(const store::Reader& reader, size_t top_count, bool with_growth,
                          HeapStackReading* stacks) {
  ASSIGN_OR_RETURN(auto processes, processes_with_figures(reader));
  ASSIGN_OR_RETURN(auto ticks, reader.ticks());

  Summary s;
  const store::RecordingMeta& meta = reader.meta();
  s.command = meta.command.value_or(std::vector<std::string>());
  s.mode = meta.mode.value_or("");
  if (meta.source_file && s.mode == "import") {
    s.imported_from = *meta.source_file;
  }
  s.root_pid = meta.root_pid.value_or(0);
  s.start_ms = meta.start_ms.value_or(ticks.empty() ? 0 : ticks.front().t_ms);
  s.cpu_profile = meta.cpu_profile;
  s.interval_ms = meta.interval_ms.value_or(0);
  auto end_ms = meta.end_ms;
  s.complete = end_ms.has_value();
  // This canopy's own recording without an end is one it failed to finish (its disk
  // filled), never one it still writes.
  s.still_recording = !s.complete && meta.recorder_pid != ::getpid() && recorder_running(meta);
  int64_t last_ms = end_ms.value_or(ticks.empty() ? s.start_ms : ticks.back().t_ms);
  s.wall_ms = last_ms - s.start_ms;
  s.exit_code = meta.exit_code;
  s.exit_signal = meta.exit_signal;
  s.process_events = meta.process_events.value_or("");
  s.process_events_lost = meta.process_events_lost.value_or(0);
  s.machine_forks = meta.machine_forks;

  s.ticks = static_cast<int64_t>(ticks.size());
  for (const auto& tick : ticks) {
    s.process_samples += tick.processes;
    if (tick.rss_bytes > s.sampled_peak_tree_rss_bytes) {
      s.sampled_peak_tree_rss_bytes = tick.rss_bytes;
      s.peak_tree_t_ms = tick.t_ms - s.start_ms;
    }
  }

  int64_t sampled_user_ns = 0;
  int64_t sampled_system_ns = 0;
  // Attach mode: a process that ran before the recording brings the CPU time of its
  // whole life (a service's hours); what it used while recorded is its last figure less
  // its first sample's.
  std::unordered_map<int64_t, store::Reader::CpuTimes> before_recording;
  if (s.mode == "attach") {
    ASSIGN_OR_RETURN(before_recording, reader.cpu_at_first_samples());
  }
  std::vector<ProcessPeak> peaks;
  for (const auto& p : processes) {
    const auto before = p.start_ms < s.start_ms ? before_recording.find(p.id) : before_recording.end();
    const store::Reader::CpuTimes used_before =
        before == before_recording.end() ? store::Reader::CpuTimes{} : before->second;
    sampled_user_ns += std::max<int64_t>(0, p.cpu_user_ns.value_or(0) - used_before.user_ns);
    sampled_system_ns += std::max<int64_t>(0, p.cpu_system_ns.value_or(0) - used_before.system_ns);
    if (!p.end_ms) {
      ++s.still_running;
    }
    peaks.push_back(process_peak(p, s.start_ms));
  }
  s.processes = static_cast<int64_t>(processes.size());
  s.cgroup = meta.cgroup.value_or("");
  ASSIGN_OR_RETURN(auto cgroup_ticks, reader.cgroup_ticks());
  for (const auto& tick : cgroup_ticks) {
    int64_t peak = std::max(tick.memory_bytes, tick.memory_peak_bytes.value_or(0));
    s.cgroup_peak_bytes = std::max(s.cgroup_peak_bytes.value_or(0), peak);
    s.cgroup_oom_kills = std::max(s.cgroup_oom_kills, tick.oom_kills);
  }
  if (!s.complete) {
    s.still_running = 0;  // unknown: the recording stopped before their end was seen
  }

  auto exact_user = meta.tree_cpu_user_ns;
  auto exact_system = meta.tree_cpu_system_ns;
  // The kernel's account of the waited-for children (run mode) covers the whole tree
  // once every process has ended: each was waited for, by its parent or by canopy as
  // the subreaper. Then it is the figure, even where the processes' own figures add up
  // to a little more (rounding). It misses the processes still running at the end, and
  // then each figure is short of the truth, so the larger one, whole, is the nearer.
  const bool all_waited_for = s.complete && s.still_running == 0;
  if (exact_user && exact_system &&
      (all_waited_for || *exact_user + *exact_system >= sampled_user_ns + sampled_system_ns)) {
    s.cpu_user_ns = *exact_user;
    s.cpu_system_ns = *exact_system;
    s.cpu_exact = true;
  } else {
    s.cpu_user_ns = sampled_user_ns;
    s.cpu_system_ns = sampled_system_ns;
  }

  std::stable_sort(peaks.begin(), peaks.end(),
                   [](const ProcessPeak& a, const ProcessPeak& b) { return a.peak_rss_bytes > b.peak_rss_bytes; });
  s.peak_tree_rss_bytes = s.sampled_peak_tree_rss_bytes;
  if (!peaks.empty() && peaks.front().peak_rss_bytes > s.peak_tree_rss_bytes) {
    s.peak_tree_rss_bytes = peaks.front().peak_rss_bytes;
    s.peak_tree_t_ms = peaks.front().peak_t_ms;
    s.peak_tree_process = peaks.front();
  }
  peaks.resize(std::min(peaks.size(), top_count));
  for (ProcessPeak& peak : peaks) {
    peak.cmdline = cmdline_of(processes, peak.process_id);
  }
  s.top = std::move(peaks);

  ASSIGN_OR_RETURN(auto limit_events, reader.events_of_kind("limit"));
  for (const auto& event : limit_events) {
    s.limit_events.push_back("+" + format_duration_ms(event.t_ms - s.start_ms) + " " + event.text);
  }

  if (with_growth) {
    ASSIGN_OR_RETURN(auto growth, analyze_growth(reader, processes, s.interval_ms, last_ms));
    s.growth = std::move(growth);
    ASSIGN_OR_RETURN(auto profile, reader.heap_profile());
    constexpr size_t kUnprofiledNamed = 3;  // per reason, as canopy heap names them
    HeapCoverageSummary coverage = summarize_heap_coverage(profile, processes, s.complete, kUnprofiledNamed);
    if (coverage.state != HeapCoverageSummary::State::kNoHeap) {
      s.heap_coverage = std::move(coverage);
      std::set<int64_t> imaged;
      for (const store::HeapImageRow& image : profile.images) {
        if (image.process_id) {
          imaged.insert(*image.process_id);
        }
      }
      s.heap_imaged_processes = static_cast<int64_t>(imaged.size());
    }
    if (!profile.images.empty()) {
      const std::vector<HeapImageHistory> histories =
          heap_histories(profile, stacks ? stacks->stacks_that_read_alike(profile) : HeapStackAliases{});
      s.heap_leaks = heap_leak_report(histories, processes);
      s.heap_leaks->growth_beyond = growth_beyond_heap(*s.growth, *s.heap_leaks, histories, processes);
      if (stacks) {
        stacks->name_leaks(profile, s.heap_leaks->leaks);
        stacks->name_leaks(profile, s.heap_leaks->unjudged);
      }
    }
  }

  ASSIGN_OR_RETURN(auto logs, reader.log_sources());
  s.logs = std::move(logs);

  auto recorder_user = meta.recorder_cpu_user_ns;
  auto recorder_system = meta.recorder_cpu_system_ns;
  if (recorder_user && recorder_system) {
    s.recorder_cpu_ns = *recorder_user + *recorder_system;
  }
  return s;
}

}  // namespace canopy::analyze
