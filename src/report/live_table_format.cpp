#include "report/live_table_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/terminal_text.h"
#include "common/text.h"
#include "common/utf8.h"

namespace canopy::report {
namespace {

// "1:02.3" since the start; hours when there are some.
std::string elapsed(int64_t ms) {
  ms = std::max<int64_t>(0, ms);
  int64_t tenths = ms / 100;
  int64_t hours = tenths / 36000;
  int64_t minutes = tenths / 600 % 60;
  int64_t seconds = tenths / 10 % 60;
  char text[32];
  if (hours > 0) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld.%lld", static_cast<long long>(hours),
                  static_cast<long long>(minutes), static_cast<long long>(seconds), static_cast<long long>(tenths % 10));
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld.%lld", static_cast<long long>(minutes),
                  static_cast<long long>(seconds), static_cast<long long>(tenths % 10));
  }
  return text;
}

std::string percent(double value) { return std::to_string(std::lround(value)) + "%"; }

std::string pad_left(const std::string& text, size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

// Cut to at most `width` bytes, at a character's boundary: a multi-byte character
// (the headline's "·", a UTF-8 name) takes one column, so a line may end a little short
// of the width, never past it.
std::string fitted(std::string line, size_t width) {
  line.resize(utf8_prefix(line, width).size());
  return line;
}

}  // namespace

std::vector<std::string> live_table_lines(const live::LiveFigures& figures, int64_t start_ms, size_t rows,
                                          size_t width) {
  double tree_cpu = 0;
  for (const live::LiveProcessFigures& p : figures.each_process) {
    tree_cpu += p.cpu_percent;
  }
  // Two headlines, so that each fits an 80-column terminal: the tree now, then its memory.
  std::string now = "canopy " + elapsed(figures.t_ms - start_ms) + " · " +
                    count_of(figures.processes, "process", "processes") + " (" +
                    std::to_string(figures.processes_started) + " started) · CPU " + percent(tree_cpu);
  std::string memory = "resident " + format_bytes(figures.rss_bytes) + " · peak " +
                       format_bytes(figures.peak_rss_bytes) + " at " + elapsed(figures.peak_t_ms - start_ms);
  if (figures.cgroup_peak_bytes) {
    memory += " (cgroup " + format_bytes(*figures.cgroup_peak_bytes) + ")";
  }
  // With record --heap, each process's heap in use beside its resident memory: a leak
  // shows as a heap that only grows ("-" until its profiler has sent a snapshot).
  const bool heap = figures.heap_profiling;
  std::vector<std::string> lines = {
      fitted(now, width), fitted(memory, width),
      fitted(heap ? "      PID    RESIDENT        HEAP    CPU   THR  COMMAND" : "      PID    RESIDENT    CPU   THR  COMMAND",
             width)};

  std::vector<const live::LiveProcessFigures*> order;
  for (const live::LiveProcessFigures& p : figures.each_process) {
    order.push_back(&p);
  }
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->rss_bytes != b->rss_bytes ? a->rss_bytes > b->rss_bytes : a->pid < b->pid;
  });
  size_t shown = std::min(rows, order.size());
  for (size_t i = 0; i < shown; ++i) {
    const live::LiveProcessFigures& p = *order[i];
    std::string heap_column;
    if (heap) {
      heap_column = p.heap_in_use_bytes ? format_bytes(*p.heap_in_use_bytes) : "-";
    }
    char row[128];
    std::snprintf(row, sizeof row, "%9lld  %10s  %s%s%5s  %4lld  ", static_cast<long long>(p.pid),
                  format_bytes(p.rss_bytes).c_str(), heap ? pad_left(heap_column, 10).c_str() : "", heap ? "  " : "",
                  percent(p.cpu_percent).c_str(), static_cast<long long>(p.threads));
    lines.push_back(fitted(row + terminal_safe(p.command), width));
  }
  if (shown < order.size()) {
    lines.push_back(fitted("   … and " + std::to_string(order.size() - shown) + " more", width));
  }
  return lines;
}

}  // namespace canopy::report
