// /metrics' text (web/metrics_exposition.h): the 0.0.4 format's HELP and TYPE lines
// and escapes, the top-N groups and their bound, and counters that never go down as
// commands come, go and change places; with --heap, each process's heap in use, its
// bound and its escapes, and nothing of it without.
#include "web/metrics_exposition.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace canopy::web {
namespace {

using live::LiveCommandFigures;
using live::LiveFigures;
using live::LiveProcessFigures;

// One exposition as Prometheus reads it: each series' value, each family's type, and
// the families in the order their samples come. Fails the test on a line out of place.
struct ParsedExposition {
  std::map<std::string, std::string> values;  // "name{labels}" -> value text
  std::map<std::string, std::string> types;
  std::map<std::string, std::string> helps;
};

ParsedExposition parse_exposition_text(const std::string& text) {
  ParsedExposition parsed;
  std::string family;  // whose HELP and TYPE came last
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    EXPECT_NE(end, std::string::npos) << "the last line has no newline";
    if (end == std::string::npos) {
      break;
    }
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.rfind("# HELP ", 0) == 0) {
      std::string rest = line.substr(7);
      family = rest.substr(0, rest.find(' '));
      EXPECT_EQ(parsed.helps.count(family), 0u) << "HELP twice for " << family;
      parsed.helps[family] = rest.substr(family.size() + 1);
    } else if (line.rfind("# TYPE ", 0) == 0) {
      std::string rest = line.substr(7);
      std::string name = rest.substr(0, rest.find(' '));
      EXPECT_EQ(name, family) << "TYPE without its HELP just before";
      EXPECT_EQ(parsed.types.count(name), 0u) << "TYPE twice for " << name;
      parsed.types[name] = rest.substr(name.size() + 1);
    } else {
      size_t name_end = line.find_first_of("{ ");
      EXPECT_NE(name_end, std::string::npos) << line;
      if (name_end == std::string::npos) {
        break;
      }
      EXPECT_EQ(line.substr(0, name_end), family) << "a sample outside its family: " << line;
      size_t value_at = line.rfind(' ');
      std::string series = line.substr(0, value_at);
      EXPECT_EQ(parsed.values.count(series), 0u) << "series twice: " << series;
      parsed.values[series] = line.substr(value_at + 1);
    }
  }
  return parsed;
}

double series_value(const ParsedExposition& parsed, const std::string& series) {
  auto it = parsed.values.find(series);
  if (it == parsed.values.end()) {
    ADD_FAILURE() << "no series " << series;
    return -1;
  }
  return std::stod(it->second);
}

LiveCommandFigures command_figures(const std::string& name, int64_t rss_mib, int64_t processes, int64_t cpu_user_ms) {
  LiveCommandFigures c;
  c.command = name;
  c.rss_bytes = rss_mib << 20;
  c.anon_bytes = c.rss_bytes / 2;
  c.processes = processes;
  c.threads = processes;
  c.cpu_user_ns = cpu_user_ms * 1'000'000;
  return c;
}

TEST(MetricsExposition, EscapesLabelValuesAsTheFormatSays) {
  EXPECT_EQ(escape_label_value("plain"), "plain");
  EXPECT_EQ(escape_label_value("a\\b"), "a\\\\b");
  EXPECT_EQ(escape_label_value("say \"hi\""), "say \\\"hi\\\"");
  EXPECT_EQ(escape_label_value("two\nlines"), "two\\nlines");
  // Invalid UTF-8 (a lone continuation byte) becomes U+FFFD: Prometheus reads UTF-8.
  EXPECT_EQ(escape_label_value("x\x80y"), "x\xEF\xBF\xBDy");
  EXPECT_EQ(escape_help("back\\slash\nnewline \"quotes stay\""), "back\\\\slash\\nnewline \"quotes stay\"");
}

TEST(MetricsExposition, EveryFamilyHasHelpAndTypeOnceAndItsSamplesAfter) {
  LiveFigures figures;
  figures.t_ms = 1'700'000'000'123;
  figures.rss_bytes = 300 << 20;
  figures.processes = 3;
  figures.cpu_ns = 2'500'000'001;
  figures.commands = {command_figures("make", 10, 1, 5), command_figures("cc1 \"x\"\n\\", 290, 2, 900)};
  figures.cgroup_memory_bytes = 250 << 20;
  figures.cgroup_peak_bytes = 280 << 20;
  MetricsExposition exposition(10);
  std::string text = exposition.render(figures);
  ParsedExposition parsed = parse_exposition_text(text);

  for (const auto& [name, type] : parsed.types) {
    EXPECT_TRUE(type == "gauge" || type == "counter") << name << " " << type;
    EXPECT_EQ(type == "counter", name.size() > 6 && name.substr(name.size() - 6) == "_total") << name;
  }
  EXPECT_EQ(parsed.types.size(), parsed.helps.size());
  EXPECT_EQ(series_value(parsed, "canopy_up"), 1);
  EXPECT_EQ(parsed.values.at("canopy_tick_timestamp_seconds"), "1700000000.123");
  EXPECT_EQ(parsed.values.at("canopy_tree_cpu_seconds_total"), "2.500000001");  // exact, not a rounded double
  EXPECT_EQ(series_value(parsed, "canopy_tree_resident_bytes"), 300 << 20);
  EXPECT_EQ(series_value(parsed, "canopy_tree_cgroup_memory_bytes"), 250 << 20);
  EXPECT_EQ(series_value(parsed, "canopy_tree_cgroup_memory_peak_bytes"), 280 << 20);
  // The odd name comes out escaped, inside its quotes.
  EXPECT_EQ(series_value(parsed, "canopy_command_resident_bytes{command=\"cc1 \\\"x\\\"\\n\\\\\"}"), 290 << 20);
  EXPECT_EQ(series_value(parsed, "canopy_command_processes{command=\"make\"}"), 1);
  EXPECT_EQ(series_value(parsed, "canopy_command_cpu_seconds_total{command=\"make\",mode=\"user\"}"), 0.005);
  // The shared group is there even when empty, so its series never come and go.
  EXPECT_EQ(series_value(parsed, "canopy_command_processes{command=\"(other commands)\"}"), 0);
}

TEST(MetricsExposition, WithoutACgroupNoCgroupSeries) {
  LiveFigures figures;  // attached (--pid) or --no-cgroup: the cgroup figures are none
  figures.rss_bytes = 300 << 20;
  figures.processes = 1;
  MetricsExposition exposition(10);
  std::string text = exposition.render(figures);
  EXPECT_EQ(text.find("cgroup_memory"), std::string::npos) << text;
}

TEST(MetricsExposition, BeforeTheFirstTickOnlyUpZero) {
  MetricsFeed feed;
  MetricsExposition exposition;
  ParsedExposition parsed = parse_exposition_text(exposition.render_latest(feed));
  EXPECT_EQ(parsed.values.size(), 1u);
  EXPECT_EQ(series_value(parsed, "canopy_up"), 0);
}

TEST(MetricsExposition, TopCommandsByResidentAndOneGroupForTheRest) {
  LiveFigures figures;
  // 30 commands, command i holding i MiB: the top 5 are 29..25, the rest are one group.
  int64_t rest_rss_mib = 0;
  int64_t rest_processes = 0;
  for (int64_t i = 0; i < 30; ++i) {
    figures.commands.push_back(command_figures("cmd" + std::to_string(i), i, i % 3 + 1, i));
    if (i < 25) {
      rest_rss_mib += i;
      rest_processes += i % 3 + 1;
    }
  }
  // A command whose processes have all ended: none live, so never in the top.
  figures.commands.push_back(command_figures("gone", 0, 0, 7000));
  MetricsExposition exposition(5);
  ParsedExposition parsed = parse_exposition_text(exposition.render(figures));
  std::set<std::string> commands;
  for (const auto& [series, value] : parsed.values) {
    if (series.rfind("canopy_command_resident_bytes{", 0) == 0) {
      commands.insert(series);
    }
  }
  EXPECT_EQ(commands.size(), 6u);  // 5 and the rest
  for (int i = 25; i < 30; ++i) {
    EXPECT_EQ(series_value(parsed, "canopy_command_resident_bytes{command=\"cmd" + std::to_string(i) + "\"}"),
              static_cast<double>(int64_t{i} << 20));
  }
  const std::string other = "{command=\"(other commands)\"}";
  EXPECT_EQ(series_value(parsed, "canopy_command_resident_bytes" + other), static_cast<double>(rest_rss_mib << 20));
  EXPECT_EQ(series_value(parsed, "canopy_command_processes" + other), static_cast<double>(rest_processes));
  // Every series of every family stays within the bound: 6 groups, two CPU modes each.
  size_t cpu_series = 0;
  for (const auto& [series, value] : parsed.values) {
    cpu_series += series.rfind("canopy_command_cpu_seconds_total{", 0) == 0;
  }
  EXPECT_EQ(cpu_series, 12u);
}

TEST(MetricsExposition, CountersNeverGoDownAsCommandsEndAndChangePlaces) {
  // Two slots. Round by round: "b" and "a" lead; "c" grows past "a", which moves to
  // the shared group; every process of "c" ends (its CPU stays with it, as the
  // recorder keeps it, but with no live process it is in the shared group); "a" takes
  // its slot back, and "d" comes, too small for one.
  std::vector<std::vector<LiveCommandFigures>> rounds = {
      {command_figures("a", 50, 1, 100), command_figures("b", 60, 1, 200), command_figures("c", 5, 1, 10)},
      {command_figures("a", 50, 1, 400), command_figures("b", 60, 1, 300), command_figures("c", 90, 1, 50)},
      {command_figures("a", 50, 1, 900), command_figures("b", 60, 1, 350), command_figures("c", 0, 0, 60)},
      {command_figures("a", 70, 1, 950), command_figures("b", 60, 1, 360), command_figures("c", 0, 0, 60),
       command_figures("d", 1, 1, 5000)},
  };
  MetricsExposition exposition(2);
  std::map<std::string, double> highest;
  for (size_t round = 0; round < rounds.size(); ++round) {
    LiveFigures figures;
    figures.t_ms = static_cast<int64_t>(round) * 1000;
    figures.commands = rounds[round];
    ParsedExposition parsed = parse_exposition_text(exposition.render(figures));
    for (const auto& [series, value] : parsed.values) {
      std::string family = series.substr(0, series.find('{'));
      if (parsed.types[family] != "counter") {
        continue;
      }
      double now = std::stod(value);
      auto it = highest.find(series);
      if (it != highest.end()) {
        EXPECT_GE(now, it->second) << series << " went down at round " << round;
      }
      highest[series] = now;
    }
  }
  // The shared group counted what its members used while in it: "c" its first 10 ms
  // (round 0), "a" 300 ms (round 1, when "c" took its slot), "c" 10 ms more after its
  // end (round 2), "d" its 5000 ms (round 3: new, and too small for a slot).
  const std::string other_user = "canopy_command_cpu_seconds_total{command=\"(other commands)\",mode=\"user\"}";
  EXPECT_DOUBLE_EQ(highest.at(other_user), 0.010 + 0.300 + 0.010 + 5.0);
}

LiveProcessFigures heap_process(int64_t pid, const std::string& command, std::optional<int64_t> heap_mib) {
  LiveProcessFigures p;
  p.pid = pid;
  p.command = command;
  p.rss_bytes = 64 << 20;
  p.threads = 1;
  if (heap_mib) {
    p.heap_in_use_bytes = *heap_mib << 20;
  }
  return p;
}

size_t series_of_family(const ParsedExposition& parsed, const std::string& family) {
  size_t count = 0;
  for (const auto& [series, value] : parsed.values) {
    count += series == family || series.rfind(family + "{", 0) == 0;
  }
  return count;
}

TEST(MetricsExposition, WithoutHeapProfilingNoHeapFamilies) {
  LiveFigures figures;
  figures.processes = 1;
  figures.commands = {command_figures("make", 10, 1, 5)};
  // A heap figure that reached the process anyway is not served: --heap is off.
  figures.each_process = {heap_process(101, "make", 5)};
  MetricsExposition exposition(10);
  std::string text = exposition.render(figures);
  EXPECT_EQ(text.find("heap"), std::string::npos) << text;
}

TEST(MetricsExposition, HeapInUseOfTheTopProcessesAndOneSumForTheRest) {
  LiveFigures figures;
  figures.heap_profiling = true;
  // 12 processes: process i (pid 1000 + i) holds i MiB of heap; two have not reported.
  // With 3 slots, 11, 10 and 9 get series; 0 to 8 are summed; the silent ones are in
  // neither.
  int64_t rest_mib = 0;
  for (int64_t i = 0; i < 12; ++i) {
    figures.each_process.push_back(heap_process(1000 + i, "worker", i));
    if (i < 9) {
      rest_mib += i;
    }
  }
  figures.each_process.push_back(heap_process(2000, "silent", std::nullopt));
  figures.each_process.push_back(heap_process(2001, "silent", std::nullopt));
  // An odd command name, with the most heap: escaped inside its quotes.
  figures.each_process.push_back(heap_process(3000, "a\"b\\c\nd\x80", 100));
  MetricsExposition exposition(3);
  ParsedExposition parsed = parse_exposition_text(exposition.render(figures));
  const std::string family = "canopy_process_heap_in_use_bytes";
  EXPECT_EQ(parsed.types.at(family), "gauge");
  EXPECT_NE(parsed.helps.at(family).find("estimated"), std::string::npos) << parsed.helps.at(family);
  EXPECT_EQ(series_of_family(parsed, family), 4u);  // 3 and the rest
  EXPECT_EQ(series_value(parsed, family + "{pid=\"3000\",command=\"a\\\"b\\\\c\\nd\xEF\xBF\xBD\"}"),
            static_cast<double>(int64_t{100} << 20));
  EXPECT_EQ(series_value(parsed, family + "{pid=\"1011\",command=\"worker\"}"), static_cast<double>(int64_t{11} << 20));
  EXPECT_EQ(series_value(parsed, family + "{pid=\"1010\",command=\"worker\"}"), static_cast<double>(int64_t{10} << 20));
  // 9 MiB is outside the top 3 now that the odd process leads: in the sum.
  EXPECT_EQ(series_value(parsed, family + "{pid=\"other\",command=\"(other processes)\"}"),
            static_cast<double>((rest_mib + 9) << 20));
  EXPECT_EQ(series_value(parsed, "canopy_tree_heap_profiled_processes"), 13);
}

TEST(MetricsExposition, HeapProfilingBeforeAnyReportServesTheEmptySum) {
  LiveFigures figures;
  figures.heap_profiling = true;
  figures.each_process = {heap_process(101, "make", std::nullopt)};
  MetricsExposition exposition(10);
  ParsedExposition parsed = parse_exposition_text(exposition.render(figures));
  EXPECT_EQ(series_of_family(parsed, "canopy_process_heap_in_use_bytes"), 1u);
  EXPECT_EQ(series_value(parsed, "canopy_process_heap_in_use_bytes{pid=\"other\",command=\"(other processes)\"}"), 0);
  EXPECT_EQ(series_value(parsed, "canopy_tree_heap_profiled_processes"), 0);
}

}  // namespace
}  // namespace canopy::web
