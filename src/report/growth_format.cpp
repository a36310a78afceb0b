#include "report/growth_format.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/terminal_text.h"
#include "common/text.h"
#include "report/summary_format.h"

namespace canopy::report {
namespace {

using Ending = analyze::GrowthFinding::Ending;
using Verdict = analyze::GrowthFinding::Verdict;

std::string fit_text(double r_squared) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "R² %.2f", r_squared);
  return buf;
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSteady:
      return "steady";
    case Verdict::kHeld:
      return "held";
    case Verdict::kReturned:
      return "returned";
  }
  return "";
}

const char* ending_name(Ending ending) {
  switch (ending) {
    case Ending::kRunning:
      return "running";
    case Ending::kStopped:
      return "stopped";
    case Ending::kExited:
      return "exited";
  }
  return "";
}

// Where the memory was still held, and how long it sat idle on it.
std::string still_held_text(const analyze::GrowthFinding& f) {
  std::string line = "and still held it when ";
  switch (f.ending) {
    case Ending::kRunning:
      line += "the recording ended";
      break;
    case Ending::kStopped:
      line += "the recording stopped it";
      break;
    case Ending::kExited:
      line += "it exited";
      break;
  }
  return f.idle_after_max_ms > 0 ? line + ", after " + format_duration_ms(f.idle_after_max_ms) + " idle" : line;
}

// "  memory growth" and what there is to say when nothing is listed; else the header.
std::string growth_header(const analyze::GrowthReport& report) {
  char line[256];
  std::string busy = count_of(report.exited_while_busy, "process", "processes") + " rose but exited while still busy with it";
  if (!report.findings.empty()) {
    return report.exited_while_busy == 0 ? "  memory growth:\n" : "  memory growth:     (" + busy + ": no claim)\n";
  }
  std::string none;
  if (report.judged == 0) {
    none = "not judged: no process lived " + format_duration_ms(analyze::kGrowthMinSpanMs) + " and " +
           std::to_string(analyze::kGrowthMinTicks) + " ticks";
  } else if (report.exited_while_busy == 0) {
    none = "none: " + count_of(report.judged, "process", "processes") + " lived long enough to judge, and none rose significantly";
  } else {
    none = "none held: of " + count_of(report.judged, "process", "processes") + " judged, " + busy +
           " (the kernel frees it at the exit)";
  }
  std::snprintf(line, sizeof line, "  %-18s %s\n", "memory growth", none.c_str());
  return line;
}

std::string finding_line(const analyze::GrowthFinding& f) {
  char line[640];
  std::snprintf(line, sizeof line, "    %-16s pid %-8lld %s\n", terminal_safe(f.name).c_str(), static_cast<long long>(f.pid),
                growth_text(f).c_str());
  return line;
}

std::string group_line(const analyze::GrowthGroup& group) {
  if (group.count == 1) {
    return finding_line(*group.largest);
  }
  char line[700];
  std::snprintf(line, sizeof line, "    %-16s %lld processes; the largest, pid %lld: %s\n", terminal_safe(group.largest->name).c_str(),
                static_cast<long long>(group.count), static_cast<long long>(group.largest->pid),
                growth_text(*group.largest).c_str());
  return line;
}

// Above the resident memory findings that a heap profile's leaks leave unexplained.
constexpr const char* kBeyondHeapHeader =
    "    but resident memory grew beyond what the heap profile sees (mmap, a runtime's heap, freed memory kept):\n";

}  // namespace

std::string growth_text(const analyze::GrowthFinding& f) {
  const int64_t rise = f.max_bytes - f.start_bytes;
  switch (f.verdict) {
    case Verdict::kSteady:
      return "grew steadily " + format_bytes(static_cast<int64_t>(f.slope_bytes_per_min)) + "/min for " +
             format_duration_ms(f.growth_ms) + " (fit " + fit_text(f.r_squared) + "), to " + format_bytes(f.max_bytes) +
             ", " + still_held_text(f);
    case Verdict::kHeld:
      return "rose " + format_bytes(rise) + " to " + format_bytes(f.max_bytes) + ", not steadily (fit " +
             fit_text(f.r_squared) + " over " + format_duration_ms(f.growth_ms) + " of its " +
             format_duration_ms(f.span_ms) + "), " + still_held_text(f) + ": state that is kept?";
    case Verdict::kReturned:
      return "rose " + format_bytes(rise) + " under load and came back down to " + format_bytes(f.end_bytes) +
             (f.idle_at_end ? " once idle" : "");
  }
  return "";
}

// The findings grouped by command, at most kSummaryGrowthLines lines.
std::string grouped_findings_text(const analyze::GrowthReport& report, const std::string& path) {
  std::string out;
  auto groups = analyze::group_by_command(report);
  // All of them when they fit; else one line fewer, for the line that says how many more.
  size_t shown = groups.size() <= kSummaryGrowthLines ? groups.size() : kSummaryGrowthLines - 1;
  int64_t processes_not_shown = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i < shown) {
      out += group_line(groups[i]);
    } else {
      processes_not_shown += groups[i].count;
    }
  }
  if (shown < groups.size()) {
    out += "    and " + std::to_string(groups.size() - shown) + " more (" +
           count_of(processes_not_shown, "process", "processes") + "): canopy report " + shell_join({path}) +
           " --growth\n";
  }
  return out;
}

std::string growth_summary_text(const analyze::GrowthReport& report, const std::string& path) {
  return growth_header(report) + grouped_findings_text(report, path);
}

std::string growth_beyond_heap_text(const std::vector<analyze::GrowthFinding>& beyond, const std::string& path) {
  if (beyond.empty()) {
    return "";
  }
  return std::string(kBeyondHeapHeader) + grouped_findings_text({.findings = beyond}, path);
}

std::string growth_beyond_heap_list_text(const std::vector<analyze::GrowthFinding>& beyond) {
  if (beyond.empty()) {
    return "";
  }
  std::string out = kBeyondHeapHeader;
  for (const auto& f : beyond) {
    out += finding_line(f);
  }
  return out;
}

std::string growth_list_text(const analyze::GrowthReport& report) {
  std::string out = growth_header(report);
  for (const auto& f : report.findings) {
    out += finding_line(f);
  }
  return out;
}

nlohmann::json growth_json(const analyze::GrowthReport& report) {
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : report.findings) {
    findings.push_back({{"pid", f.pid},
                        {"name", f.name},
                        {"verdict", verdict_name(f.verdict)},
                        {"ending", ending_name(f.ending)},
                        {"span_ms", f.span_ms},
                        {"ticks", f.ticks},
                        {"growth_ms", f.growth_ms},
                        {"start_bytes", f.start_bytes},
                        {"max_bytes", f.max_bytes},
                        {"end_bytes", f.end_bytes},
                        {"slope_bytes_per_min", f.slope_bytes_per_min},
                        {"r_squared", f.r_squared},
                        {"monotonic", f.monotonic},
                        {"idle_after_max_ms", f.idle_after_max_ms},
                        {"idle_at_end", f.idle_at_end}});
  }
  nlohmann::json by_command = nlohmann::json::array();
  for (const auto& group : analyze::group_by_command(report)) {
    by_command.push_back({{"name", group.largest->name},
                          {"verdict", verdict_name(group.largest->verdict)},
                          {"count", group.count},
                          {"largest_pid", group.largest->pid}});
  }
  return {{"judged", report.judged},
          {"exited_while_busy", report.exited_while_busy},
          {"min_span_ms", analyze::kGrowthMinSpanMs},
          {"min_ticks", analyze::kGrowthMinTicks},
          {"sustained_share", analyze::kGrowthSustainedShare},
          {"idle_hold_share", analyze::kGrowthIdleHoldShare},
          {"findings", findings},
          {"by_command", by_command}};
}

}  // namespace canopy::report
