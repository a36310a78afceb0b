#include "report/summary_format.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <nlohmann/json.hpp>

#include "common/json_dump.h"
#include "common/short_command.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "report/growth_format.h"
#include "report/heap_coverage_format.h"
#include "report/heap_leaks_format.h"

namespace canopy::report {

namespace {

// The words of each highest peak (process_words), told apart where those of one name
// read alike.
std::vector<std::string> peak_words(const std::vector<analyze::ProcessPeak>& top) {
  std::vector<std::string> words;
  std::vector<const std::vector<std::string>*> cmdlines;
  std::vector<std::string_view> names;
  for (const analyze::ProcessPeak& p : top) {
    words.push_back(process_words(p.cmdline, p.name));
    cmdlines.push_back(&p.cmdline);
    names.push_back(p.name);
  }
  tell_apart(words, cmdlines, names);
  return words;
}

std::string seconds(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  return buf;
}

std::string offset(int64_t ms) { return "+" + format_duration_ms(ms); }

// The process count, and how far to trust it: the kernel's events see every process;
// polling misses those that live less than an interval.
std::string processes_line(const analyze::Summary& s) {
  std::string line = std::to_string(s.processes);
  if (s.still_running) {
    line += " (" + std::to_string(s.still_running) + " still running at the end)";
  }
  if (s.process_events == "netlink") {
    line += s.process_events_lost == 0 ? ", every one, from the kernel's process events"
                                       : ", from the kernel's process events (" +
                                             std::to_string(s.process_events_lost) + " overflows: some may be missing)";
  } else if (s.process_events.rfind("off: ", 0) == 0) {
    line += ", found by polling every " + std::to_string(s.interval_ms) + " ms";
  }
  return line;
}

// The tree's peak: the highest sum at a tick, or a process's own peak above it.
std::string peak_memory_line(const analyze::Summary& s) {
  const std::string sampling = "sampled every " + std::to_string(s.interval_ms) + " ms";
  if (!s.peak_tree_process) {
    return format_bytes(s.peak_tree_rss_bytes) + " resident, whole tree, at " + offset(s.peak_tree_t_ms) + " (" +
           sampling + ")";
  }
  const analyze::ProcessPeak& p = *s.peak_tree_process;
  std::string line = "at least " + format_bytes(s.peak_tree_rss_bytes) + " resident, whole tree: " + p.name +
                     "'s own (pid " + std::to_string(p.pid) + ") " + (p.peak_from_exit_record ? "by " : "at ") +
                     offset(p.peak_t_ms);
  if (s.sampled_peak_tree_rss_bytes == 0) {
    return line + "; the tree ended before a tick could sample it (" + sampling + ")";
  }
  return line + ", between ticks (" + sampling + "; the highest sum " + format_bytes(s.sampled_peak_tree_rss_bytes) +
         ")";
}

// The exact peak of the whole tree from its cgroup, beside what sampling saw.
std::optional<std::string> tree_peak_line(const analyze::Summary& s) {
  if (s.cgroup.empty()) {
    return std::nullopt;  // a recording from before canopy used cgroups
  }
  if (!s.cgroup_peak_bytes) {
    return "not measured: no cgroup (" + s.cgroup + ")";
  }
  // "cgroup v1 (memory, ...) PATH": the version is enough here, the meta has the rest.
  std::string line = format_bytes(*s.cgroup_peak_bytes) + " exact, from its " + s.cgroup.substr(0, s.cgroup.find(' ', 7)) +
                     " (shared pages once, page cache included)";
  // A peak between ticks that the per-tick sums never came near.
  if (*s.cgroup_peak_bytes > s.peak_tree_rss_bytes * 2 && *s.cgroup_peak_bytes - s.peak_tree_rss_bytes > (16 << 20)) {
    line += s.peak_tree_process
                ? "; the peak memory above missed it: at least " + format_bytes(s.peak_tree_rss_bytes)
                : "; the sampled sum missed it: " + format_bytes(s.peak_tree_rss_bytes) + " at its highest";
  }
  // Far below the sampled sum, which counts a page several processes map (a library,
  // the memory forks share until they write it) in each of them.
  if (!s.peak_tree_process && s.peak_tree_rss_bytes > *s.cgroup_peak_bytes * 2 &&
      s.peak_tree_rss_bytes - *s.cgroup_peak_bytes > (16 << 20)) {
    line += "; the peak memory above counts a page its processes share in each of them";
  }
  // Below one process's own peak: what that process mapped was already in memory.
  if (!s.top.empty() && *s.cgroup_peak_bytes < s.top.front().peak_rss_bytes) {
    line += "; less than " + terminal_safe(s.top.front().name) + "'s " + format_bytes(s.top.front().peak_rss_bytes) +
            " resident: pages first touched outside the tree (its libraries, cached files) are charged elsewhere";
  }
  if (s.cgroup_oom_kills > 0) {
    line += "; " + count_of(s.cgroup_oom_kills, "OOM kill", "OOM kills");
  }
  return line;
}

// With polling, how many the tree can have started unseen: at most what the whole
// machine started meanwhile, less what was seen.
std::optional<std::string> possibly_missed_line(const analyze::Summary& s) {
  if (s.process_events.rfind("off: ", 0) != 0 || !s.machine_forks) {
    return std::nullopt;
  }
  int64_t unseen = std::max<int64_t>(0, *s.machine_forks - s.processes);
  return "up to " + std::to_string(unseen) + " shorter-lived ones: the machine started " +
         std::to_string(*s.machine_forks) + " processes and threads meanwhile (process events " +
         s.process_events + ")";
}

// A log added with `canopy log add`: "app.log: 11973 events (lines)".
std::string log_line(const store::LogSourceRow& log) {
  std::string line = log.name + ": " + count_of(log.events, "event", "events") + " (" +
                     log.format + ")";
  if (log.outside_span > 0) {
    line += ", " + std::to_string(log.outside_span) + " outside the recording's time span";
  }
  return line;
}

}  // namespace

// Names, command lines and paths are shown terminal_safe: one can hold escape sequences
// or a newline, which must neither reach the terminal nor break a row.
std::string summary_text(const analyze::Summary& s, const std::string& path) {
  std::string out;
  char line[512];
  auto add = [&](const char* label, const std::string& value) {
    std::snprintf(line, sizeof line, "  %-18s %s\n", label, terminal_safe(value).c_str());
    out += line;
  };
  out += "canopy: " + (s.mode == "attach" ? "attached to PID " + std::to_string(s.root_pid) + " " : "") +
         terminal_safe(s.mode == "import" ? "imported from " + s.imported_from : shell_join(s.command)) + "\n";
  if (s.exit_signal) {
    add("exit", "killed by signal " + std::to_string(*s.exit_signal) + " (" + signal_name(*s.exit_signal) + ")");
  } else if (s.exit_code) {
    add("exit status", std::to_string(*s.exit_code));
  }
  const char* unfinished = s.still_recording ? " (still recording: up to its last commit)"
                                             : " (recording interrupted: ends at its last commit)";
  add("wall time", format_duration_ms(s.wall_ms) + (s.complete ? "" : unfinished));
  int64_t cpu_ns = s.cpu_user_ns + s.cpu_system_ns;
  int64_t percent = s.wall_ms > 0 ? cpu_ns / 10'000 / s.wall_ms : 0;
  add("CPU", "user " + seconds(s.cpu_user_ns) + ", system " + seconds(s.cpu_system_ns) + " (" +
                 std::to_string(percent) + "% of one core; " + (s.cpu_exact ? "exact, from the kernel" : "sampled") +
                 ")");
  add("peak memory", peak_memory_line(s));
  if (auto tree_peak = tree_peak_line(s)) {
    add("tree peak", *tree_peak);
  }
  add("processes", processes_line(s));
  if (auto missed = possibly_missed_line(s)) {
    add("possibly missed", *missed);
  }
  for (size_t i = 0; i < s.limit_events.size(); ++i) {
    add(i == 0 ? "limits" : "", s.limit_events[i]);
  }
  if (!s.top.empty()) {
    out += "  highest peaks:\n";
    const std::vector<std::string> words_of = peak_words(s.top);
    for (size_t i = 0; i < s.top.size(); ++i) {
      const analyze::ProcessPeak& p = s.top[i];
      // An exit record's peak has no time of its own, only the end it came before.
      std::snprintf(line, sizeof line, "    %10s  %-16s pid %-8lld %s %s", format_bytes(p.peak_rss_bytes).c_str(),
                    terminal_safe(p.name).c_str(), static_cast<long long>(p.pid),
                    p.peak_from_exit_record ? "by" : "at", offset(p.peak_t_ms).c_str());
      out += line;
      if (!words_of[i].empty()) {
        out += "  " + terminal_safe(words_of[i]);
      }
      out += '\n';
    }
  }
  // The heap profile knows which code kept its memory; resident memory alone only guesses.
  if (s.heap_leaks) {
    out += heap_leaks_summary_text(*s.heap_leaks, s.start_ms, path);
  } else if (s.growth) {
    out += growth_summary_text(*s.growth, path);
  }
  for (size_t i = 0; i < s.logs.size(); ++i) {
    add(i == 0 ? "logs" : "", log_line(s.logs[i]));
  }
  if (s.heap_coverage) {
    add("heap profile",
        heap_coverage_line(*s.heap_coverage, s.heap_imaged_processes) + "; see canopy heap " + shell_join({path}));
  }
  if (s.cpu_profile) {
    bool off = s.cpu_profile->rfind("off: ", 0) == 0;
    add("cpu profile", off ? *s.cpu_profile : *s.cpu_profile + "; see canopy profile " + shell_join({path}));
  }
  add("recording", path);
  add("open it with", "canopy view " + shell_join({path}));
  return out;
}

std::string summary_json(const analyze::Summary& s, const std::string& path) {
  return json_dump(summary_json_object(s, path), 2) + "\n";
}

nlohmann::json summary_json_object(const analyze::Summary& s, const std::string& path) {
  nlohmann::json top = nlohmann::json::array();
  for (const auto& p : s.top) {
    top.push_back({{"pid", p.pid},
                   {"name", p.name},
                   {"name_source", p.named_from_exit_record ? "exit record" : "proc"},
                   {"cmdline", p.cmdline},
                   {"peak_rss_bytes", p.peak_rss_bytes},
                   {"peak_t_ms", p.peak_t_ms},
                   {"peak_source", p.peak_from_exit_record ? "exit record" : "sample"},
                   {"cpu_ns", p.cpu_ns}});
  }
  nlohmann::json json = {
      {"recording", path},
      {"command", s.command},
      {"mode", s.mode},
      {"root_pid", s.root_pid},
      {"start_ms", s.start_ms},
      {"wall_ms", s.wall_ms},
      {"complete", s.complete},
      {"still_recording", s.still_recording},
      {"exit_code", s.exit_code ? nlohmann::json(*s.exit_code) : nlohmann::json()},
      {"exit_signal", s.exit_signal ? nlohmann::json(*s.exit_signal) : nlohmann::json()},
      {"cpu_user_ns", s.cpu_user_ns},
      {"cpu_system_ns", s.cpu_system_ns},
      {"cpu_exact", s.cpu_exact},
      {"peak_tree_rss_bytes", s.peak_tree_rss_bytes},
      {"peak_tree_t_ms", s.peak_tree_t_ms},
      {"peak_tree_at_least", s.peak_tree_process.has_value()},
      {"sampled_peak_tree_rss_bytes", s.sampled_peak_tree_rss_bytes},
      {"interval_ms", s.interval_ms},
      {"ticks", s.ticks},
      {"process_samples", s.process_samples},
      {"processes", s.processes},
      {"still_running", s.still_running},
      {"process_events", s.process_events.empty() ? nlohmann::json() : nlohmann::json(s.process_events)},
      {"process_events_lost", s.process_events_lost},
      {"limit_events", s.limit_events},
      {"cgroup", s.cgroup.empty() ? nlohmann::json() : nlohmann::json(s.cgroup)},
      {"cgroup_peak_bytes", s.cgroup_peak_bytes ? nlohmann::json(*s.cgroup_peak_bytes) : nlohmann::json()},
      {"cgroup_oom_kills", s.cgroup_oom_kills},
      {"machine_forks", s.machine_forks ? nlohmann::json(*s.machine_forks) : nlohmann::json()},
      {"top", top},
      {"recorder_cpu_ns", s.recorder_cpu_ns ? nlohmann::json(*s.recorder_cpu_ns) : nlohmann::json()},
  };
  if (s.growth) {
    json["growth"] = growth_json(*s.growth);
  }
  if (s.cpu_profile) {
    json["cpu_profile"] = *s.cpu_profile;
  }
  if (s.heap_leaks) {
    json["heap_leaks"] = heap_leaks_json(*s.heap_leaks);
  }
  if (s.heap_coverage) {
    json["heap_coverage"] = heap_coverage_json(*s.heap_coverage);
    json["heap_coverage"]["imaged_processes"] = s.heap_imaged_processes;
  }
  nlohmann::json logs = nlohmann::json::array();
  for (const store::LogSourceRow& log : s.logs) {
    logs.push_back({{"name", log.name},
                    {"format", log.format},
                    {"added_ms", log.added_ms},
                    {"events", log.events},
                    {"outside_span", log.outside_span}});
  }
  json["logs"] = std::move(logs);
  return json;
}

}  // namespace canopy::report
