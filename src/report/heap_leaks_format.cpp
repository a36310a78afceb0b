#include "report/heap_leaks_format.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/terminal_text.h"
#include "common/text.h"
#include "report/growth_format.h"
#include "report/heap_format.h"
#include "report/summary_format.h"

namespace canopy::report {
namespace {

std::string images_text(int64_t n) { return count_of(n, "process image", "process images"); }

// Lines for HeapLeakReport::unjudged in the summary, the last of them "and N more".
constexpr size_t kSummaryUnjudgedLines = 3;

// Why HeapLeakReport::unjudged were not judged: "held most of their heap in ...".
std::string unjudged_why(size_t images) {
  return std::string(images == 1 ? "held most of its heap" : "held most of their heap") +
         " in stacks too thinly sampled or seen at too few snapshots (--heap=64K samples more):";
}

std::string header(const analyze::HeapLeakReport& report) {
  std::string what;
  if (!report.leaks.empty()) {
    what =
        "leaks in " + std::to_string(report.images_leaking) + " of " + images_text(report.images_judged) + " profiled:";
  } else if (report.images_judged > 0 || report.unjudged.empty()) {
    what = "no leak in the heap profile of " + images_text(report.images_judged) +
           ": no stack kept growing and kept what it allocated";
  } else {
    what = "not judged: the heap profile's " + images_text(static_cast<int64_t>(report.unjudged.size())) + " " +
           unjudged_why(report.unjudged.size());
  }
  char label[32];
  std::snprintf(label, sizeof label, "  %-18s ", "memory growth");
  return label + what + "\n";
}

// How many of `groups` lines to show in at most `lines`: all of them when they fit;
// else one fewer, for the line that says how many more.
size_t lines_shown(size_t groups, size_t lines) { return groups <= lines ? groups : lines - 1; }

// The line over the unjudged images when the header is not theirs; "" when it is.
std::string unjudged_header(const analyze::HeapLeakReport& report) {
  if (report.unjudged.empty() || (report.leaks.empty() && report.images_judged == 0)) {
    return "";
  }
  return "    not judged: " +
         count_of(static_cast<int64_t>(report.unjudged.size()), "more process image", "more process images") + " " +
         unjudged_why(report.unjudged.size()) + "\n";
}

std::string where_text(const analyze::HeapLeak& leak) { return terminal_safe(leak.where.empty() ? "?" : leak.where); }

// "grew at 5 snapshots, the last at +2.483 s, and kept 100%"
std::string leak_verdict_text(const analyze::HeapVerdict& v, int64_t start_ms) {
  int kept_percent = v.half_sampled > 0 ? static_cast<int>(100 * v.half_kept / v.half_sampled) : 0;
  return "grew at " + std::to_string(v.rises) + " snapshots, the last at " +
         heap_offset_text(v.last_rise_t_ms, start_ms) +
         ", and kept " + std::to_string(kept_percent) + "%" + (v.freed_at_exit ? " until its exit" : "");
}

// "    canopy_heap_wor  pid 25412        5.5 MiB  " and the rest of the line.
std::string line_text(const std::string& name, const std::string& who, int64_t held_bytes, const std::string& rest) {
  char head[128];
  std::snprintf(head, sizeof head, "    %-16s %-12s %10s  ", terminal_safe(name).c_str(), who.c_str(),
                format_bytes(held_bytes).c_str());
  return head + rest + "\n";
}

// How a line says a stack's verdict: leak_verdict_text for a leak, heap_verdict_text for
// a stack not judged ("unclear: too few sampled allocations to judge (3, needs 5)").
using VerdictText = std::string (*)(const analyze::HeapVerdict&, int64_t start_ms);

// "canopy_heap_wor  pid 25412   5.5 MiB  leak_site_c (heap_workload.cpp:58): grew at 5
// snapshots, the last at +2.483 s, and kept 100%"; `canopy heap` says the rest.
std::string leak_line(const analyze::HeapLeak& leak, int64_t start_ms, VerdictText verdict_text) {
  return line_text(leak.name, "pid " + std::to_string(leak.pid), leak.verdict.held_bytes,
                   where_text(leak) + ": " + verdict_text(leak.verdict, start_ms));
}

// The leaks of one command at one place: a pool's workers that all leak alike, or one
// process's stacks that differ only below the function that names them.
struct LeakGroup {
  const analyze::HeapLeak* largest = nullptr;
  int64_t held_bytes = 0;
  std::set<int64_t> pids;
  int64_t stacks = 0;
};

std::vector<LeakGroup> group_leaks(const std::vector<analyze::HeapLeak>& leaks) {
  std::vector<LeakGroup> groups;
  std::map<std::pair<std::string, std::string>, size_t> index;  // by name and place
  for (const analyze::HeapLeak& leak : leaks) {  // the largest first
    auto [at, added] = index.try_emplace({leak.name, leak.where}, groups.size());
    if (added) {
      groups.push_back({&leak, 0, {}, 0});
    }
    LeakGroup& group = groups[at->second];
    group.held_bytes += leak.verdict.held_bytes;
    group.pids.insert(leak.pid);
    ++group.stacks;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const LeakGroup& a, const LeakGroup& b) { return a.held_bytes > b.held_bytes; });
  return groups;
}

// "python3  3 processes  33.3 MiB  PyByteArray_Resize (bytearrayobject.c:233): the
// largest, pid 23813, grew at 3 snapshots, ..."; one leak's line when it is alone.
std::string group_line(const LeakGroup& group, int64_t start_ms, VerdictText verdict_text) {
  const analyze::HeapLeak& largest = *group.largest;
  if (group.stacks == 1) {
    return leak_line(largest, start_ms, verdict_text);
  }
  const bool one_process = group.pids.size() == 1;
  std::string who = one_process ? "pid " + std::to_string(largest.pid)
                                : count_of(static_cast<int64_t>(group.pids.size()), "process", "processes");
  std::string where = where_text(largest);
  if (group.stacks > static_cast<int64_t>(group.pids.size())) {
    where += " in " + std::to_string(group.stacks) + " stacks";
  }
  std::string which = one_process ? "the largest " : "the largest, pid " + std::to_string(largest.pid) + ", ";
  return line_text(largest.name, who, group.held_bytes, where + ": " + which + verdict_text(largest.verdict, start_ms));
}

}  // namespace

std::string heap_leaks_summary_text(const analyze::HeapLeakReport& report, int64_t start_ms,
                                    const std::string& path) {
  std::string out = header(report);
  std::vector<LeakGroup> groups = group_leaks(report.leaks);
  size_t shown = lines_shown(groups.size(), kSummaryGrowthLines);
  int64_t leaks_not_shown = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i < shown) {
      out += group_line(groups[i], start_ms, leak_verdict_text);
    } else {
      leaks_not_shown += groups[i].stacks;
    }
  }
  if (shown < groups.size()) {
    out += "    and " + count_of(leaks_not_shown, "more leak", "more leaks") + ": canopy report " + shell_join({path}) +
           " --growth\n";
  }
  // Fewer lines than the leaks': they are the reader's next place to look, not findings.
  out += unjudged_header(report);
  std::vector<LeakGroup> unjudged = group_leaks(report.unjudged);
  size_t unjudged_shown = lines_shown(unjudged.size(), kSummaryUnjudgedLines);
  for (size_t i = 0; i < unjudged_shown; ++i) {
    out += group_line(unjudged[i], start_ms, heap_verdict_text);
  }
  if (unjudged_shown < unjudged.size()) {
    size_t images = 0;
    for (size_t i = unjudged_shown; i < unjudged.size(); ++i) {
      images += unjudged[i].pids.size();
    }
    out += "    and " + count_of(static_cast<int64_t>(images), "more process image", "more process images") +
           ": canopy report " + shell_join({path}) + " --growth\n";
  }
  return out + growth_beyond_heap_text(report.growth_beyond, path);
}

std::string heap_leaks_list_text(const analyze::HeapLeakReport& report, int64_t start_ms) {
  std::string out = header(report);
  for (const analyze::HeapLeak& leak : report.leaks) {
    out += leak_line(leak, start_ms, leak_verdict_text);
  }
  out += unjudged_header(report);
  for (const analyze::HeapLeak& stack : report.unjudged) {
    out += leak_line(stack, start_ms, heap_verdict_text);
  }
  return out + growth_beyond_heap_list_text(report.growth_beyond);
}

nlohmann::json heap_leaks_json(const analyze::HeapLeakReport& report) {
  auto stacks_json = [](const std::vector<analyze::HeapLeak>& stacks) {
    nlohmann::json out = nlohmann::json::array();
    for (const analyze::HeapLeak& stack : stacks) {
      out.push_back({{"pid", stack.pid},
                     {"name", stack.name},
                     {"stack_id", stack.stack_id},
                     {"where", stack.where},
                     {"verdict", heap_verdict_json(stack.verdict)}});
    }
    return out;
  };
  return {{"images", report.images},
          {"images_judged", report.images_judged},
          {"images_leaking", report.images_leaking},
          {"leaks", stacks_json(report.leaks)},
          {"unjudged", stacks_json(report.unjudged)},
          {"growth_beyond", growth_json({.findings = report.growth_beyond})["findings"]}};
}

}  // namespace canopy::report
