#include "report/heap_leaks_format.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/terminal_text.h"
#include "common/text.h"
#include "report/growth_format.h"
#include "report/heap_format.h"
#include "report/summary_format.h"

namespace canopy::report {
namespace {

std::string images_text(int64_t n) { return std::to_string(n) + (n == 1 ? " process image" : " process images"); }

std::string header(const analyze::HeapLeakReport& report) {
  char line[256];
  std::string what = report.leaks.empty()
                         ? "no leak in the heap profile of " + images_text(report.images_judged) +
                               ": no stack kept growing and kept what it allocated"
                         : "leaks in " + std::to_string(report.images_leaking) + " of " +
                               images_text(report.images_judged) + " profiled:";
  std::snprintf(line, sizeof line, "  %-18s %s\n", "memory growth", what.c_str());
  return line;
}

// "canopy_heap_wor  pid 25412   5.5 MiB  leak_site_c (heap_workload.cpp:58): grew at 5
// snapshots, the last at +2.483 s, and kept 100%"; `canopy heap` says the rest.
std::string leak_line(const analyze::HeapLeak& leak, int64_t start_ms) {
  char line[768];
  const analyze::HeapVerdict& v = leak.verdict;
  int kept_percent = v.half_sampled > 0 ? static_cast<int>(100 * v.half_kept / v.half_sampled) : 0;
  std::snprintf(line, sizeof line, "    %-16s pid %-8lld %10s  %s: grew at %lld snapshots, the last at %s, and kept %d%%%s\n",
                terminal_safe(leak.name).c_str(), static_cast<long long>(leak.pid), format_bytes(v.held_bytes).c_str(),
                terminal_safe(leak.where.empty() ? "?" : leak.where).c_str(), static_cast<long long>(v.rises),
                heap_offset_text(v.last_rise_t_ms, start_ms).c_str(), kept_percent,
                v.freed_at_exit ? " until its exit" : "");
  return line;
}

}  // namespace

std::string heap_leaks_summary_text(const analyze::HeapLeakReport& report, int64_t start_ms,
                                    const std::string& path) {
  std::string out = header(report);
  // All of them when they fit; else one line fewer, for the line that says how many more.
  size_t shown = report.leaks.size() <= kSummaryGrowthLines ? report.leaks.size() : kSummaryGrowthLines - 1;
  for (size_t i = 0; i < shown; ++i) {
    out += leak_line(report.leaks[i], start_ms);
  }
  if (shown < report.leaks.size()) {
    out += "    and " + std::to_string(report.leaks.size() - shown) + " more: canopy report " + shell_join({path}) +
           " --growth\n";
  }
  return out;
}

std::string heap_leaks_list_text(const analyze::HeapLeakReport& report, int64_t start_ms) {
  std::string out = header(report);
  for (const analyze::HeapLeak& leak : report.leaks) {
    out += leak_line(leak, start_ms);
  }
  return out;
}

nlohmann::json heap_leaks_json(const analyze::HeapLeakReport& report) {
  nlohmann::json leaks = nlohmann::json::array();
  for (const analyze::HeapLeak& leak : report.leaks) {
    leaks.push_back({{"pid", leak.pid},
                     {"name", leak.name},
                     {"stack_id", leak.stack_id},
                     {"where", leak.where},
                     {"verdict", heap_verdict_json(leak.verdict)}});
  }
  return {{"images", report.images},
          {"images_judged", report.images_judged},
          {"images_leaking", report.images_leaking},
          {"leaks", leaks}};
}

}  // namespace canopy::report
