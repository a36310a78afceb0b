#include "web/metrics_exposition.h"

#include <algorithm>
#include <vector>

#include "common/utf8.h"

namespace canopy::web {
namespace {

using live::LiveCommandFigures;

// Nanoseconds as exact decimal seconds: a double would round a long run's CPU, and
// a counter read back lower than before is a reset to Prometheus.
std::string seconds_text(int64_t ns) {
  std::string fraction = std::to_string(ns % 1'000'000'000);
  return std::to_string(ns / 1'000'000'000) + "." + std::string(9 - fraction.size(), '0') + fraction;
}

std::string milliseconds_as_seconds_text(int64_t ms) {
  std::string fraction = std::to_string(ms % 1000);
  return std::to_string(ms / 1000) + "." + std::string(3 - fraction.size(), '0') + fraction;
}

// One metric family: its HELP and TYPE lines once, then its samples.
class Family {
 public:
  Family(std::string& out, std::string_view name, std::string_view type, std::string_view help)
      : out_(out), name_(name) {
    out_.append("# HELP ").append(name).append(" ").append(escape_help(help)).append("\n");
    out_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
  }
  void sample(const std::string& value) { out_.append(name_).append(" ").append(value).append("\n"); }
  void sample(int64_t value) { sample(std::to_string(value)); }
  // `labels`: name="escaped value" pairs, already joined.
  void labelled(const std::string& labels, const std::string& value) {
    out_.append(name_).append("{").append(labels).append("} ").append(value).append("\n");
  }

 private:
  std::string& out_;
  std::string_view name_;
};

std::string command_label(const std::string& command) { return "command=\"" + escape_label_value(command) + "\""; }

// record --heap: the top `top` processes by heap in use, one series each, and the
// others that reported summed in one. A process whose profiler has sent nothing yet
// is in neither: its heap is unknown, not zero.
void append_heap_families(std::string& out, const live::LiveFigures& f, int64_t top) {
  std::vector<const live::LiveProcessFigures*> reported;
  for (const live::LiveProcessFigures& p : f.each_process) {
    if (p.heap_in_use_bytes) {
      reported.push_back(&p);
    }
  }
  const size_t own = std::min(reported.size(), static_cast<size_t>(std::max<int64_t>(top, 0)));
  // Ties by pid, so that the choice does not flicker between equals.
  std::partial_sort(reported.begin(), reported.begin() + static_cast<std::ptrdiff_t>(own), reported.end(),
                    [](const live::LiveProcessFigures* a, const live::LiveProcessFigures* b) {
                      return *a->heap_in_use_bytes != *b->heap_in_use_bytes
                                 ? *a->heap_in_use_bytes > *b->heap_in_use_bytes
                                 : a->pid < b->pid;
                    });
  int64_t others_bytes = 0;
  for (size_t i = own; i < reported.size(); ++i) {
    others_bytes += *reported[i]->heap_in_use_bytes;
  }
  Family(out, "canopy_tree_heap_profiled_processes", "gauge",
         "Live processes of the tree whose heap profiler has reported (record --heap): those the heap series cover")
      .sample(static_cast<int64_t>(reported.size()));
  Family heap(out, "canopy_process_heap_in_use_bytes", "gauge",
              "Heap in use of the process, estimated from its heap profiler's samples (record --heap): what it "
              "allocated with malloc or new while sampling was on, since its program started, and has not freed, "
              "as of its latest snapshot (every --heap-interval). The top N processes by it; pid=\"other\" sums "
              "the rest");
  for (size_t i = 0; i < own; ++i) {
    heap.labelled("pid=\"" + std::to_string(reported[i]->pid) + "\"," + command_label(reported[i]->command),
                  std::to_string(*reported[i]->heap_in_use_bytes));
  }
  heap.labelled(std::string("pid=\"") + kOtherProcessesPid + "\"," + command_label(kOtherProcesses),
                std::to_string(others_bytes));
}

}  // namespace

std::string escape_label_value(std::string_view text) {
  std::string scratch;
  std::string_view valid = sanitized_utf8(text, scratch);
  std::string out;
  out.reserve(valid.size());
  for (char c : valid) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
  return out;
}

std::string escape_help(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string MetricsExposition::render(const live::LiveFigures& figures) {
  std::lock_guard lock(mutex_);
  return render_locked(&figures);
}

std::string MetricsExposition::render_latest(const MetricsFeed& feed) {
  std::lock_guard lock(mutex_);
  auto figures = feed.latest();
  return render_locked(figures.get());
}

std::string MetricsExposition::render_locked(const live::LiveFigures* figures) {
  std::string out;
  Family up(out, "canopy_up", "gauge", "1 once the recorder has sampled the tree, 0 before its first tick");
  up.sample(figures ? 1 : 0);
  if (!figures) {
    return out;
  }
  const live::LiveFigures& f = *figures;
  out.reserve(4096 + 600 * static_cast<size_t>(std::min<int64_t>(top_, 1000)));

  // The top N by resident memory, of the commands with a live process; ties by CPU,
  // then name, so that the choice does not flicker between equals.
  std::vector<const LiveCommandFigures*> ranked;
  ranked.reserve(f.commands.size());
  for (const LiveCommandFigures& c : f.commands) {
    if (c.processes > 0) {
      ranked.push_back(&c);
    }
  }
  const size_t top = std::min(ranked.size(), static_cast<size_t>(std::max<int64_t>(top_, 0)));
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(top), ranked.end(),
                    [](const LiveCommandFigures* a, const LiveCommandFigures* b) {
                      if (a->rss_bytes != b->rss_bytes) {
                        return a->rss_bytes > b->rss_bytes;
                      }
                      int64_t a_cpu = a->cpu_user_ns + a->cpu_system_ns;
                      int64_t b_cpu = b->cpu_user_ns + b->cpu_system_ns;
                      return a_cpu != b_cpu ? a_cpu > b_cpu : a->command < b->command;
                    });
  ranked.resize(top);

  // The shared group: the gauges of the rest, and to its counters what the rest used
  // since the previous render (a command's own counter never goes down).
  LiveCommandFigures other;
  other.command = kOtherCommands;
  for (const LiveCommandFigures& c : f.commands) {
    Counted& before = previous_[c.command];
    bool own = std::find(ranked.begin(), ranked.end(), &c) != ranked.end();
    if (!own) {
      other.rss_bytes += c.rss_bytes;
      other.anon_bytes += c.anon_bytes;
      other.swap_bytes += c.swap_bytes;
      other.processes += c.processes;
      other.threads += c.threads;
      other_.cpu_user_ns += std::max<int64_t>(0, c.cpu_user_ns - before.cpu_user_ns);
      other_.cpu_system_ns += std::max<int64_t>(0, c.cpu_system_ns - before.cpu_system_ns);
      other_.oom_kills += std::max<int64_t>(0, c.oom_kills - before.oom_kills);
    }
    before = {c.cpu_user_ns, c.cpu_system_ns, c.oom_kills};
  }
  other.cpu_user_ns = other_.cpu_user_ns;
  other.cpu_system_ns = other_.cpu_system_ns;
  other.oom_kills = other_.oom_kills;
  std::vector<const LiveCommandFigures*> groups = ranked;
  groups.push_back(&other);

  Family(out, "canopy_tick_timestamp_seconds", "gauge", "When the recorder sampled the figures below (Unix time)")
      .sample(milliseconds_as_seconds_text(f.t_ms));
  Family(out, "canopy_tree_resident_bytes", "gauge", "Resident memory of the tree's live processes, summed")
      .sample(f.rss_bytes);
  Family(out, "canopy_tree_anon_bytes", "gauge", "Resident anonymous memory of the tree's live processes, summed")
      .sample(f.anon_bytes);
  Family(out, "canopy_tree_swap_bytes", "gauge", "Swapped-out memory of the tree's live processes, summed")
      .sample(f.swap_bytes);
  // Without a cgroup (attached, --no-cgroup) the tree has no exact figure: no series,
  // rather than a zero that reads as an empty tree.
  if (f.cgroup_memory_bytes) {
    Family(out, "canopy_tree_cgroup_memory_bytes", "gauge",
           "Memory of the command's cgroup: the tree's, exact, shared pages counted once, page cache included")
        .sample(*f.cgroup_memory_bytes);
  }
  if (f.cgroup_peak_bytes) {
    Family(out, "canopy_tree_cgroup_memory_peak_bytes", "gauge",
           "High-water mark of the command's cgroup's memory since the recording began, between ticks too")
        .sample(*f.cgroup_peak_bytes);
  }
  Family(out, "canopy_tree_cpu_seconds_total", "counter", "CPU time of the tree, ended processes included")
      .sample(seconds_text(f.cpu_ns));
  Family(out, "canopy_tree_processes", "gauge", "Live processes in the tree").sample(f.processes);
  Family(out, "canopy_tree_threads", "gauge", "Threads of the tree's live processes").sample(f.threads);
  Family(out, "canopy_tree_processes_started_total", "counter", "Processes seen in the tree since the recording began")
      .sample(f.processes_started);
  Family(out, "canopy_tree_oom_kills_total", "counter", "OOM kills in the command's cgroup (0 without one)")
      .sample(f.oom_kills);
  Family limit_hits(out, "canopy_tree_limit_hits_total", "counter",
                    "Times the tree hit a limit of its cgroup: memory (memory.max) or processes (pids.max)");
  limit_hits.labelled("limit=\"memory\"", std::to_string(f.memory_limit_hits));
  limit_hits.labelled("limit=\"processes\"", std::to_string(f.pids_limit_hits));

  struct GroupFamily {
    const char* name;
    const char* type;
    const char* help;
    int64_t LiveCommandFigures::*field;
  };
  const GroupFamily families[] = {
      {"canopy_command_resident_bytes", "gauge", "Resident memory of the command's live processes, summed",
       &LiveCommandFigures::rss_bytes},
      {"canopy_command_anon_bytes", "gauge", "Resident anonymous memory of the command's live processes, summed",
       &LiveCommandFigures::anon_bytes},
      {"canopy_command_swap_bytes", "gauge", "Swapped-out memory of the command's live processes, summed",
       &LiveCommandFigures::swap_bytes},
      {"canopy_command_processes", "gauge", "Live processes running the command", &LiveCommandFigures::processes},
      {"canopy_command_threads", "gauge", "Threads of the command's live processes", &LiveCommandFigures::threads},
      {"canopy_command_oom_kills_total", "counter", "OOM kills of the command's processes in the tree's cgroup",
       &LiveCommandFigures::oom_kills},
  };
  std::vector<std::string> labels;
  labels.reserve(groups.size());
  for (const LiveCommandFigures* g : groups) {
    labels.push_back(command_label(g->command));
  }
  for (const GroupFamily& family : families) {
    Family series(out, family.name, family.type, family.help);
    for (size_t i = 0; i < groups.size(); ++i) {
      series.labelled(labels[i], std::to_string(groups[i]->*family.field));
    }
  }
  Family cpu(out, "canopy_command_cpu_seconds_total", "counter",
             "CPU time of the command's processes, ended ones included, by mode (user, system)");
  for (size_t i = 0; i < groups.size(); ++i) {
    cpu.labelled(labels[i] + ",mode=\"user\"", seconds_text(groups[i]->cpu_user_ns));
    cpu.labelled(labels[i] + ",mode=\"system\"", seconds_text(groups[i]->cpu_system_ns));
  }
  if (f.heap_profiling) {
    append_heap_families(out, f, top_);
  }
  return out;
}

}  // namespace canopy::web
