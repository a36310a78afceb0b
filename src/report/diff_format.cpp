#include "report/diff_format.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <nlohmann/json.hpp>

#include "common/json_dump.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "common/utf8.h"
#include "report/summary_format.h"

namespace canopy::report {
namespace {

using analyze::Change;
using analyze::DiffProcess;
using analyze::ProcessPair;
using analyze::UnmatchedGroup;

constexpr size_t kLineWidth = 100;

std::string sign_of(int64_t delta) { return delta > 0 ? "+" : delta < 0 ? "-" : ""; }

// Seconds at a fixed width for the tables: CPU times of minutes stay in seconds, so
// that the column lines up and compares at a glance.
std::string cpu_seconds(int64_t ns) {
  char buf[32];
  double s = static_cast<double>(ns) / 1e9;
  std::snprintf(buf, sizeof buf, s < 100 ? "%.3f s" : "%.1f s", s);
  return buf;
}

// No sign on a change too small to show: "-0.000 s" would claim a direction.
std::string signed_cpu(int64_t delta_ns) {
  std::string magnitude = cpu_seconds(std::llabs(delta_ns));
  return magnitude == cpu_seconds(0) ? magnitude : sign_of(delta_ns) + magnitude;
}

std::string signed_duration(int64_t delta_ms) { return sign_of(delta_ms) + format_duration_ms(std::llabs(delta_ms)); }

std::string signed_count(int64_t delta) { return sign_of(delta) + std::to_string(std::llabs(delta)); }

// "+50.0%"; growth from nothing has no percentage.
std::string percent(const Change& change) {
  auto relative = change.relative();
  if (!relative) {
    return "from 0";
  }
  double pct = *relative * 100;
  if (std::fabs(pct) < 0.05) {
    return "0.0%";  // not "-0.0%"
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(pct) < 1000 ? "%+.1f%%" : "%+.0f%%", pct);
  return buf;
}

// The last `width` bytes of `text`, "..." first when cut, not cutting a UTF-8 sequence.
std::string tail(const std::string& text, size_t width) {
  if (text.size() <= width || width <= 3) {
    return text;
  }
  size_t from = text.size() - (width - 3);
  while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) {
    ++from;
  }
  return "..." + text.substr(from);
}

// A process as "KEY  WORDS" in `width` columns, terminal_safe: WORDS are what tell it
// from others of its name (process_words: a compiler's source file, not the options
// every compiler of a build has first). A long key loses its top (the names at the
// bottom are what tell processes apart) but leaves a third of the width to the words,
// which lose their end.
std::string process_label(const std::string& key, const std::vector<std::string>& cmdline, size_t width) {
  std::string joined = terminal_safe(process_words(cmdline, path_base_name(key)));
  size_t key_width = joined.empty() ? width : width - std::min(joined.size() + 2, width / 3);
  std::string shown = tail(terminal_safe(key), key_width);
  if (joined.empty() || shown.size() + 2 >= width) {
    return shown;
  }
  size_t room = width - shown.size() - 2;
  if (joined.size() > room) {
    joined = std::string(utf8_prefix(joined, room > 3 ? room - 3 : 0)) + "...";
  }
  return shown + "  " + joined;
}

// One line of a table, whose cells are short (the label is cut to fit the width).
void append_line(std::string& out, const char* format, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  out += buf;
  out += '\n';
}

// `text` right-aligned in `width` columns, counting a UTF-8 character as one.
std::string align_right(const std::string& text, size_t width) {
  size_t columns = 0;
  for (char c : text) {
    columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }
  return std::string(width > columns ? width - columns : 0, ' ') + text;
}

// A tree's peak memory, marked when it is a floor (DiffTotals).
std::string tree_peak_cell(int64_t bytes, bool at_least) { return (at_least ? "≥ " : "") + format_bytes(bytes); }

void append_totals(std::string& out, const analyze::DiffTotals& t) {
  append_line(out, "  %-18s %13s %13s %13s %8s", "", "A", "B", "change", "%");
  auto row = [&](const char* label, const std::string& a, const std::string& b, const std::string& change,
                 const Change& figure) {
    append_line(out, "  %-18s %s %s %13s %8s", label, align_right(a, 13).c_str(), align_right(b, 13).c_str(),
                change.c_str(), percent(figure).c_str());
  };
  row("wall time", format_duration_ms(t.wall_ms.a), format_duration_ms(t.wall_ms.b), signed_duration(t.wall_ms.delta()),
      t.wall_ms);
  row("CPU", cpu_seconds(t.cpu_ns.a), cpu_seconds(t.cpu_ns.b), signed_cpu(t.cpu_ns.delta()), t.cpu_ns);
  const Change& peak = t.peak_tree_rss_bytes;
  row("peak memory", tree_peak_cell(peak.a, t.peak_tree_at_least_a), tree_peak_cell(peak.b, t.peak_tree_at_least_b),
      format_signed_bytes(peak.delta()), peak);
  if (t.cgroup_peak_bytes) {
    const Change& c = *t.cgroup_peak_bytes;
    row("tree peak (cgroup)", format_bytes(c.a), format_bytes(c.b), format_signed_bytes(c.delta()), c);
  }
  row("processes", std::to_string(t.processes.a), std::to_string(t.processes.b), signed_count(t.processes.delta()),
      t.processes);
  if (t.peak_tree_at_least_a || t.peak_tree_at_least_b) {
    out += "  ≥ at least: no tick saw the tree at its peak (it ended before one, or peaked between two),\n"
           "    but one process alone held this much (canopy report names it)\n";
  }
}

// "(3 of 40; --all for every one)" when rows were left out.
std::string shown_of(size_t shown, size_t total) {
  if (shown == total) {
    return "";
  }
  return " (" + std::to_string(shown) + " of " + std::to_string(total) + "; --all or --top N for more)";
}

// The rankings' rows: two figures, the change, its percentage, the other figure's
// change, and the process in what is left of the line.
constexpr const char* kRankingRow = "  %10s %10s %11s %8s %12s  %s";
constexpr size_t kRankingLabelWidth = kLineWidth - 2 - 10 - 1 - 10 - 1 - 11 - 1 - 8 - 1 - 12 - 2;

void append_memory_ranking(std::string& out, const analyze::Diff& d, size_t max_rows) {
  size_t rows = std::min(max_rows, d.pairs.size());
  out += "\n  memory: largest growth first" + shown_of(rows, d.pairs.size()) + "\n";
  append_line(out, kRankingRow, "peak A", "peak B", "change", "%", "CPU change", "process");
  for (size_t i = 0; i < rows; ++i) {
    const ProcessPair& p = d.pairs[i];
    append_line(out, kRankingRow, format_bytes(p.peak_rss_bytes.a).c_str(), format_bytes(p.peak_rss_bytes.b).c_str(),
                format_signed_bytes(p.peak_rss_bytes.delta()).c_str(), percent(p.peak_rss_bytes).c_str(),
                signed_cpu(p.cpu_ns.delta()).c_str(), process_label(p.key, p.b.cmdline, kRankingLabelWidth).c_str());
  }
}

void append_cpu_ranking(std::string& out, const analyze::Diff& d, size_t max_rows) {
  size_t rows = std::min(max_rows, d.by_cpu_growth.size());
  out += "\n  CPU time: largest growth first" + shown_of(rows, d.by_cpu_growth.size()) + "\n";
  append_line(out, kRankingRow, "CPU A", "CPU B", "change", "%", "peak change", "process");
  for (size_t i = 0; i < rows; ++i) {
    const ProcessPair& p = d.pairs[d.by_cpu_growth[i]];
    append_line(out, kRankingRow, cpu_seconds(p.cpu_ns.a).c_str(), cpu_seconds(p.cpu_ns.b).c_str(),
                signed_cpu(p.cpu_ns.delta()).c_str(), percent(p.cpu_ns).c_str(),
                format_signed_bytes(p.peak_rss_bytes.delta()).c_str(),
                process_label(p.key, p.b.cmdline, kRankingLabelWidth).c_str());
  }
}

void append_unmatched(std::string& out, const char* side, const std::vector<UnmatchedGroup>& groups, size_t max_rows) {
  if (groups.empty()) {
    return;
  }
  size_t processes = 0;
  for (const auto& g : groups) {
    processes += g.processes.size();
  }
  size_t rows = std::min(max_rows, groups.size());
  out += std::string("\n  only in ") + side + ": " + count_of(static_cast<int64_t>(processes), "process", "processes") +
         ", highest peak first" + shown_of(rows, groups.size()) + "\n";
  constexpr const char* kRow = "  %8s %10s %10s  %s";
  append_line(out, kRow, "count", "max peak", "CPU", "process");
  size_t label_width = kLineWidth - 2 - 8 - 1 - 10 - 1 - 10 - 2;
  for (size_t i = 0; i < rows; ++i) {
    const UnmatchedGroup& g = groups[i];
    // One process: its arguments tell which; many: the key alone.
    static const std::vector<std::string> kNoArgs;
    append_line(out, kRow, std::to_string(g.processes.size()).c_str(), format_bytes(g.max_peak_rss_bytes).c_str(),
                cpu_seconds(g.cpu_ns).c_str(),
                process_label(g.key, g.processes.size() == 1 ? g.processes.front().cmdline : kNoArgs, label_width)
                    .c_str());
  }
}

nlohmann::json change_json(const Change& c) {
  auto relative = c.relative();
  return {{"a", c.a}, {"b", c.b}, {"change", c.delta()}, {"relative", relative ? nlohmann::json(*relative) : nullptr}};
}

nlohmann::json process_json(const DiffProcess& p) {
  return {{"process_id", p.process_id}, {"pid", p.pid},           {"cmdline", p.cmdline},
          {"start_t_ms", p.start_t_ms}, {"peak_rss_bytes", p.peak_rss_bytes}, {"cpu_ns", p.cpu_ns}};
}

nlohmann::json unmatched_json(const std::vector<UnmatchedGroup>& groups) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& g : groups) {
    nlohmann::json processes = nlohmann::json::array();
    for (const auto& p : g.processes) {
      processes.push_back(process_json(p));
    }
    list.push_back({{"key", g.key},
                    {"count", g.processes.size()},
                    {"max_peak_rss_bytes", g.max_peak_rss_bytes},
                    {"cpu_ns", g.cpu_ns},
                    {"processes", processes}});
  }
  return list;
}

// By MatchedBy, in its order.
constexpr const char* kMatchedByNames[] = {"command line", "short command", "parent", "start order"};

const char* matched_by_name(analyze::MatchedBy by) { return kMatchedByNames[static_cast<size_t>(by)]; }

// What differs in how the two were recorded and moves the figures by itself.
std::string recorded_differently_text(const analyze::Diff& d) {
  std::string out;
  if (d.heap_profiled_a != d.heap_profiled_b) {
    append_line(out, "  note: only %s was recorded with --heap: the profiler in each of its processes adds "
                     "memory and CPU time of its own", d.heap_profiled_a ? "A" : "B");
  }
  if (d.interval_ms_a != d.interval_ms_b && d.interval_ms_a > 0 && d.interval_ms_b > 0) {
    out += "  note: A was sampled every " + std::to_string(d.interval_ms_a) + " ms and B every " +
           std::to_string(d.interval_ms_b) + " ms: the longer interval sees less of a short peak\n";
  }
  return out;
}

}  // namespace

std::string diff_text(const analyze::Diff& d, const std::string& path_a, const std::string& path_b, size_t max_rows) {
  std::string out = "canopy diff\n";
  // Not through append_line: a command line can be longer than its buffer.
  out += "  A  " + terminal_safe(path_a + ": " + shell_join(d.command_a)) + "\n";
  out += "  B  " + terminal_safe(path_b + ": " + shell_join(d.command_b)) + "\n";
  if (d.commands_differ) {
    out += "  note: the commands differ; processes are matched by name and place in the tree all the same\n";
  }
  struct Side {
    const char* name;
    bool complete;
    bool still_recording;
  };
  const Side sides[] = {{"A", d.complete_a, d.still_recording_a}, {"B", d.complete_b, d.still_recording_b}};
  for (const Side& side : sides) {
    if (side.still_recording) {
      append_line(out, "  note: %s is still being recorded: it ends at its last commit so far", side.name);
    } else if (!side.complete) {
      append_line(out, "  note: %s was interrupted (its recorder was killed): it ends at its last commit", side.name);
    }
  }
  out += recorded_differently_text(d);
  out += "\n";
  append_totals(out, d.totals);

  size_t only_a = 0;
  size_t only_b = 0;
  for (const auto& g : d.only_a) {
    only_a += g.processes.size();
  }
  for (const auto& g : d.only_b) {
    only_b += g.processes.size();
  }
  out += "\n";
  const int64_t by_start_order = static_cast<int64_t>(d.pairs.size()) - d.matched_by_cmdline -
                                 d.matched_by_short_command - d.matched_by_parent;
  std::string how;
  const int64_t counts[] = {d.matched_by_cmdline, d.matched_by_short_command, d.matched_by_parent, by_start_order};
  for (size_t i = 0; i < std::size(counts); ++i) {
    if (counts[i] > 0) {
      how += (how.empty() ? " (" : ", ") + std::to_string(counts[i]) + " by " + kMatchedByNames[i];
    }
  }
  append_line(out, "  %zu matched%s%s, %zu only in A, %zu only in B", d.pairs.size(), how.c_str(),
              how.empty() ? "" : ")", only_a, only_b);
  if (!d.pairs.empty()) {
    append_memory_ranking(out, d, max_rows);
    append_cpu_ranking(out, d, max_rows);
  }
  append_unmatched(out, "A", d.only_a, max_rows);
  append_unmatched(out, "B", d.only_b, max_rows);
  return out;
}

std::string diff_json(const analyze::Diff& d, const std::string& path_a, const std::string& path_b) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& p : d.pairs) {
    pairs.push_back({{"key", p.key},
                     {"matched_by", matched_by_name(p.matched_by)},
                     {"peak_rss_bytes", change_json(p.peak_rss_bytes)},
                     {"cpu_ns", change_json(p.cpu_ns)},
                     {"a", process_json(p.a)},
                     {"b", process_json(p.b)}});
  }
  const auto& t = d.totals;
  nlohmann::json json = {
      {"a",
       {{"recording", path_a},
        {"command", d.command_a},
        {"complete", d.complete_a},
        {"still_recording", d.still_recording_a}}},
      {"b",
       {{"recording", path_b},
        {"command", d.command_b},
        {"complete", d.complete_b},
        {"still_recording", d.still_recording_b}}},
      {"commands_differ", d.commands_differ},
      {"heap_profiled", {{"a", d.heap_profiled_a}, {"b", d.heap_profiled_b}}},
      {"interval_ms", {{"a", d.interval_ms_a}, {"b", d.interval_ms_b}}},
      {"totals",
       {{"wall_ms", change_json(t.wall_ms)},
        {"cpu_ns", change_json(t.cpu_ns)},
        {"peak_tree_rss_bytes", change_json(t.peak_tree_rss_bytes)},
        {"peak_tree_at_least", {{"a", t.peak_tree_at_least_a}, {"b", t.peak_tree_at_least_b}}},
        {"cgroup_peak_bytes", t.cgroup_peak_bytes ? change_json(*t.cgroup_peak_bytes) : nlohmann::json()},
        {"processes", change_json(t.processes)}}},
      {"matched", d.pairs.size()},
      {"matched_by_cmdline", d.matched_by_cmdline},
      {"matched_by_short_command", d.matched_by_short_command},
      {"matched_by_parent", d.matched_by_parent},
      {"pairs", pairs},
      {"only_a", unmatched_json(d.only_a)},
      {"only_b", unmatched_json(d.only_b)},
  };
  return json_dump(json, 2) + "\n";
}

}  // namespace canopy::report
