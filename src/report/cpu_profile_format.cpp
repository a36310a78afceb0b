#include "report/cpu_profile_format.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/json_dump.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "report/summary_format.h"

namespace canopy::report {
namespace {

std::string percent_of(int64_t part, int64_t whole) {
  char text[16];
  std::snprintf(text, sizeof text, "%5.1f%%", whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return text;
}

std::string count_column(int64_t count) {
  char text[24];
  std::snprintf(text, sizeof text, "%8lld", static_cast<long long>(count));
  return text;
}

void append_list(std::string& out, const char* title, const std::vector<analyze::CpuFunction>& functions,
                 int64_t group_samples) {
  out += std::string("  ") + title + "\n";
  out += "     self          total          function\n";
  for (const analyze::CpuFunction& f : functions) {
    // A count and a share wide: unnamed code has no total of its own.
    const std::string total = f.unnamed_code
                                  ? "       -       "
                                  : count_column(f.total_samples) + " " + percent_of(f.total_samples, group_samples);
    out += "  " + count_column(f.self_samples) + " " + percent_of(f.self_samples, group_samples) + " " + total + "  " +
           f.name + "\n";
  }
}

bool any_unnamed_code(const analyze::CpuGroup& group) {
  return std::any_of(group.by_self.begin(), group.by_self.end(),
                     [](const analyze::CpuFunction& f) { return f.unnamed_code; });
}

nlohmann::json functions_json(const std::vector<analyze::CpuFunction>& functions) {
  nlohmann::json list = nlohmann::json::array();
  for (const analyze::CpuFunction& f : functions) {
    list.push_back({{"function", f.name},
                    {"self_samples", f.self_samples},
                    {"total_samples", f.unnamed_code ? nlohmann::json() : nlohmann::json(f.total_samples)}});
  }
  return list;
}

}  // namespace

std::string cpu_profile_text(const analyze::CpuProfileSummary& summary, size_t processes) {
  std::string out = "CPU profile (" + summary.sampling + "): " + std::to_string(summary.samples) + " samples from +" +
                    format_duration_ms(summary.from_ms) + " to +" + format_duration_ms(summary.to_ms);
  if (summary.samples_lost > 0) {
    out += "; " + std::to_string(summary.samples_lost) + " more lost by the kernel (its ring buffers were full)";
  }
  out += "\n";
  // A share worth a word: a stray address or two in a C program's profile is not.
  if (summary.samples_outside_objects * 20 >= summary.samples && summary.samples_outside_objects > 0) {
    std::string share = percent_of(summary.samples_outside_objects, summary.samples);
    share.erase(0, share.find_first_not_of(' '));
    out += count_of(summary.samples_outside_objects, "sample", "samples") + " (" + share +
           ") ran outside every loaded object: JIT code no perf map names? (node --perf-basic-prof, "
           "python3 -X perf; see docs/cpu-profile.md)\n";
  }
  // --per-process on a build: a list for each of hundreds of compilers would bury the
  // few that took the most.
  const size_t listed = std::min(processes, summary.groups.size());
  for (size_t i = 0; i < listed; ++i) {
    const analyze::CpuGroup& group = summary.groups[i];
    out += "\n";
    if (group.pid == 0) {
      const std::string merged = summary.command.empty() ? "All processes" : "The processes of " + summary.command;
      out += terminal_safe(merged) + " merged: " + std::to_string(group.samples) + " samples\n";
    } else {
      const std::string process = process_title(group.command.empty() ? "?" : group.command, group.cmdline);
      out += "PID " + std::to_string(group.pid) + " " + terminal_safe(process) + ": " + std::to_string(group.samples) +
             " samples\n";
    }
    append_list(out, "By self samples (running in the function itself):", group.by_self, group.samples);
    append_list(out, "By total samples (the function on the stack):", group.by_total, group.samples);
    if (any_unnamed_code(group)) {
      out += "  ? (OBJECT): the code in OBJECT that no symbol names, many functions as one: no total of its own\n";
    }
  }
  if (summary.groups.size() > listed) {
    const size_t more = summary.groups.size() - listed;
    out += "\n" + count_of(static_cast<int64_t>(more), "more process", "more processes") +
           " with samples, each with at most " + std::to_string(summary.groups[listed].samples) +
           ": --processes " + std::to_string(summary.groups.size()) + " lists every one, --pid one\n";
  }
  return out;
}

std::string cpu_profile_json(const analyze::CpuProfileSummary& summary) {
  nlohmann::json groups = nlohmann::json::array();
  for (const analyze::CpuGroup& group : summary.groups) {
    groups.push_back({{"pid", group.pid == 0 ? nlohmann::json() : nlohmann::json(group.pid)},
                      {"command", group.pid == 0 ? nlohmann::json() : nlohmann::json(group.command)},
                      {"samples", group.samples},
                      {"by_self", functions_json(group.by_self)},
                      {"by_total", functions_json(group.by_total)}});
  }
  nlohmann::json out = {{"sampling", summary.sampling},
                        {"samples", summary.samples},
                        {"samples_lost", summary.samples_lost},
                        {"samples_outside_objects", summary.samples_outside_objects},
                        {"from_ms", summary.from_ms},
                        {"to_ms", summary.to_ms},
                        {"groups", groups}};
  return json_dump(out, 2) + "\n";
}

}  // namespace canopy::report
