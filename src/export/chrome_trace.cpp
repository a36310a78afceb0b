#include "export/chrome_trace.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "analyze/process_labels.h"
#include "common/utf8.h"
#include "export/json_text.h"
#include "export/tick_frames.h"

namespace canopy::exporters {
namespace {

// An instant event's name is what the timeline labels it with: the start of its text.
constexpr size_t kInstantNameBytes = 80;

struct Metric {
  const char* name;  // the track is named "NAME UNIT", as Perfetto joins them
  const char* unit;
};
constexpr std::array<Metric, 5> kMetrics = {{
    {"Resident", "bytes"},
    {"Anon", "bytes"},
    {"Swap", "bytes"},
    {"PSS", "bytes"},
    {"CPU", "percent"},
}};

// The metric's value at a tick as JSON text, or empty when unknown.
std::string metric_value(size_t metric, const ProcessAtTick& at) {
  const store::SampleValues& v = *at.values;
  auto known = [](std::optional<int64_t> value) { return value ? std::to_string(*value) : std::string(); };
  switch (metric) {
    case 0:
      return known(v.rss_bytes());
    case 1:
      return known(v[store::kRssAnonBytes]);
    case 2:
      return known(v[store::kSwapBytes]);
    case 3:
      return known(v[store::kPssBytes]);
    default:
      return json_decimal(at.cpu_percent, 1);
  }
}

std::string us(int64_t t_ms) { return std::to_string(t_ms * 1000); }

class TraceWriter {
 public:
  explicit TraceWriter(const std::function<void(std::string_view)>& out) : out_(out) {}

  void begin() { out_("{\"traceEvents\":["); }
  void event(const std::string& json) {
    out_(first_ ? "\n" : ",\n");
    first_ = false;
    out_(json);
  }
  void end(const std::string& other_data) {
    out_("\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":" + other_data + "}\n");
  }

 private:
  const std::function<void(std::string_view)>& out_;
  bool first_ = true;
};

std::string head(const char* ph, const std::string& name, int64_t t_ms, int64_t pid) {
  return "{\"ph\":\"" + std::string(ph) + "\",\"name\":" + json_string(name) + ",\"ts\":" + us(t_ms) +
         ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(pid);
}

}  // namespace

Status write_chrome_trace(const store::Reader& reader, const std::function<void(std::string_view)>& out) {
  ASSIGN_OR_RETURN(auto processes, reader.processes());
  ASSIGN_OR_RETURN(auto ticks, reader.ticks());
  int64_t start_ms = reader.meta().start_ms.value_or(ticks.empty() ? 0 : ticks.front().t_ms);
  int64_t recording_end_ms = reader.meta().end_ms.value_or(ticks.empty() ? start_ms : ticks.back().t_ms);
  auto end_of = [&](const store::ProcessRow& p) {
    return p.end_ms.value_or(p.last_seen_ms.value_or(recording_end_ms));
  };

  TraceWriter trace(out);
  trace.begin();

  // What tells each process from others of its name ("cc1 f5.c").
  const std::vector<std::string> words = analyze::short_commands_told_apart(processes);

  // Metadata, once per PID: a reused PID's names joined, in the order seen.
  std::map<int64_t, std::vector<const store::ProcessRow*>> by_pid;
  std::vector<int64_t> pid_order;
  for (const store::ProcessRow& p : processes) {
    auto& list = by_pid[p.pid];
    if (list.empty()) {
      pid_order.push_back(p.pid);
    }
    list.push_back(&p);
  }
  for (int64_t pid : pid_order) {
    // The process track by what tells it from others of its name; the thread track and
    // the lifetimes by the name alone, which groups them.
    std::vector<std::string> names;
    std::vector<std::string> titles;
    for (const store::ProcessRow* p : by_pid[pid]) {
      const std::string& told = words[p - processes.data()];
      const std::string title = told.empty() ? p->name : p->name + " " + told;
      if (std::find(names.begin(), names.end(), p->name) == names.end()) {
        names.push_back(p->name);
      }
      if (std::find(titles.begin(), titles.end(), title) == titles.end()) {
        titles.push_back(title);
      }
    }
    auto joined = [](const std::vector<std::string>& parts) {
      std::string text;
      for (const std::string& each : parts) {
        text += (text.empty() ? "" : " / ") + each;
      }
      return ",\"args\":{\"name\":" + json_string(text) + "}}";
    };
    trace.event(head("M", "process_name", start_ms, pid) + joined(titles));
    trace.event(head("M", "thread_name", start_ms, pid) + joined(names));
    trace.event(head("M", "process_sort_index", start_ms, pid) +
                ",\"args\":{\"sort_index\":" + std::to_string(by_pid[pid].front()->id) + "}}");
  }

  // Lifetimes.
  for (const store::ProcessRow& p : processes) {
    int64_t end_ms = end_of(p);
    std::string cmdline;
    for (const std::string& arg : p.cmdline) {
      cmdline += (cmdline.empty() ? "" : " ") + arg;
    }
    std::string args = "\"process_id\":" + std::to_string(p.id) + ",\"ppid\":" + std::to_string(p.ppid) +
                       ",\"cmdline\":" + json_string(cmdline);
    if (p.exit_code) {
      args += ",\"exit_code\":" + std::to_string(*p.exit_code);
    }
    if (p.exit_signal) {
      args += ",\"exit_signal\":" + std::to_string(*p.exit_signal);
    }
    if (p.peak_rss_bytes) {
      args += ",\"peak_rss_bytes\":" + std::to_string(*p.peak_rss_bytes);
    }
    if (p.hwm_bytes) {
      args += ",\"hwm_bytes\":" + std::to_string(*p.hwm_bytes);
    }
    trace.event(head("X", p.name, p.start_ms, p.pid) + ",\"cat\":\"process\",\"dur\":" +
                std::to_string(std::max<int64_t>(0, end_ms - p.start_ms) * 1000) + ",\"args\":{" + args + "}}");
  }

  // Counters, at the ticks where a value changed.
  constexpr store::SampleColumn kColumns[] = {store::kRssAnonBytes, store::kRssFileBytes, store::kRssShmemBytes,
                                              store::kSwapBytes, store::kPssBytes};
  std::vector<std::array<std::string, kMetrics.size()>> last(processes.size());
  std::vector<int64_t> last_tick_ms(processes.size(), 0);
  auto status = for_each_tick(
      reader, processes, ticks,
      [&](const TickFrame& frame) {
        for (const ProcessAtTick& at : frame.processes) {
          size_t i = static_cast<size_t>(at.process - processes.data());
          auto& previous = last[i];
          last_tick_ms[i] = frame.t_ms;
          for (size_t m = 0; m < kMetrics.size(); ++m) {
            std::string value = metric_value(m, at);
            if (value.empty() || value == previous[m]) {
              continue;
            }
            previous[m] = value;
            trace.event(head("C", kMetrics[m].name, frame.t_ms, at.process->pid) + ",\"args\":{\"" +
                        kMetrics[m].unit + "\":" + value + "}}");
          }
        }
      },
      kColumns);
  if (!status) {
    return status;
  }
  // A counter holds its value until the next one: at its end a process holds nothing
  // (unless it ended at its last tick, or the recording did: the trace ends there).
  for (size_t i = 0; i < processes.size(); ++i) {
    const store::ProcessRow& p = processes[i];
    if (end_of(p) <= last_tick_ms[i]) {
      continue;
    }
    for (size_t m = 0; m < kMetrics.size(); ++m) {
      if (!last[i][m].empty() && last[i][m] != "0") {
        trace.event(head("C", kMetrics[m].name, end_of(p), p.pid) + ",\"args\":{\"" + kMetrics[m].unit + "\":0}}");
      }
    }
  }

  // Instant events; the ones of no process are global.
  std::vector<int64_t> pid_of(processes.size() + 1, 0);
  for (const store::ProcessRow& p : processes) {
    if (p.id >= 0 && static_cast<size_t>(p.id) < pid_of.size()) {
      pid_of[static_cast<size_t>(p.id)] = p.pid;
    }
  }
  int64_t global_pid = processes.empty() ? 0 : processes.front().pid;
  status = reader.for_each_event([&](const store::EventRow& e) {
    bool own = e.process_id && *e.process_id >= 0 && static_cast<size_t>(*e.process_id) < pid_of.size();
    int64_t pid = own ? pid_of[static_cast<size_t>(*e.process_id)] : global_pid;
    std::string name(utf8_prefix(e.text, kInstantNameBytes));
    trace.event(head("i", name.empty() ? e.kind : name, e.t_ms, pid) + ",\"cat\":" + json_string(e.kind) +
                ",\"s\":\"" + (own ? "p" : "g") + "\",\"args\":{\"text\":" + json_string(e.text) + "}}");
  });
  if (!status) {
    return status;
  }

  std::string command;
  for (const std::string& arg : reader.meta().command.value_or(std::vector<std::string>())) {
    command += (command.empty() ? "" : " ") + arg;
  }
  trace.end("{\"recorded_by\":\"canopy\",\"command\":" + json_string(command) + "}");
  return Ok{};
}

}  // namespace canopy::exporters
