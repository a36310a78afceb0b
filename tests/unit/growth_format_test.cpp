// The growth section as the summary prints it: findings grouped by command with their
// count, never more than five lines however many processes grew, and the command that
// lists them all; and what each verdict says of a process, with no word of a leak.
#include "report/growth_format.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace canopy::report {
namespace {

using analyze::GrowthFinding;
using analyze::GrowthReport;

constexpr int64_t kMiB = 1 << 20;

GrowthFinding steady(const std::string& name, int64_t pid, int64_t rise_mib) {
  GrowthFinding f;
  f.verdict = GrowthFinding::Verdict::kSteady;
  f.ending = GrowthFinding::Ending::kRunning;
  f.name = name;
  f.pid = pid;
  f.span_ms = 60'000;
  f.growth_ms = 54'000;
  f.start_bytes = 10 * kMiB;
  f.max_bytes = f.end_bytes = (10 + rise_mib) * kMiB;
  f.slope_bytes_per_min = static_cast<double>(rise_mib * kMiB) * 60'000 / 54'000;
  f.r_squared = 0.99;
  f.monotonic = true;
  return f;
}

// As the analysis orders them: largest rise first (all steady here).
GrowthReport report_of(std::vector<GrowthFinding> findings) {
  std::stable_sort(findings.begin(), findings.end(),
                   [](const GrowthFinding& a, const GrowthFinding& b) { return a.max_bytes > b.max_bytes; });
  GrowthReport report;
  report.findings = std::move(findings);
  report.judged = static_cast<int64_t>(report.findings.size()) + 100;
  return report;
}

size_t lines_in(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(GrowthFormat, FindingsOfOneCommandAreOneLineWithTheirCount) {
  // 43 servers, the largest (pid 143) up 143 MiB, and one cache.
  std::vector<GrowthFinding> findings;
  for (int64_t i = 1; i <= 43; ++i) {
    findings.push_back(steady("server", 100 + i, 100 + i));
  }
  findings.push_back(steady("cache", 7, 20));
  auto report = report_of(findings);
  auto groups = analyze::group_by_command(report);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].count, 43);
  EXPECT_EQ(groups[0].largest->pid, 143);
  EXPECT_EQ(groups[1].count, 1);

  std::string text = growth_summary_text(report, "r.canopy");
  EXPECT_EQ(text,
            "  memory growth:\n"
            "    server           43 processes; the largest, pid 143: grew steadily 158.9 MiB/min for 54.000 s (fit R² "
            "0.99), to 153.0 MiB, and still held it when the recording ended\n"
            "    cache            pid 7        grew steadily 22.2 MiB/min for 54.000 s (fit R² 0.99), to 30.0 MiB, and "
            "still held it when the recording ended\n");
}

TEST(GrowthFormat, AtMostFiveLinesThenTheCommandThatListsThemAll) {
  // Seven commands, the last three with two processes each.
  std::vector<GrowthFinding> findings;
  for (int64_t i = 0; i < 7; ++i) {
    findings.push_back(steady("cmd" + std::to_string(i), 10 + i, 100 - i * 10));
    if (i >= 4) {
      findings.push_back(steady("cmd" + std::to_string(i), 20 + i, 50 - i * 5));
    }
  }
  auto report = report_of(findings);
  std::string text = growth_summary_text(report, "my build.canopy");
  EXPECT_EQ(lines_in(text), 1 + kSummaryGrowthLines) << text;  // the header and five
  EXPECT_NE(text.find("    cmd3             pid 13 "), std::string::npos) << text;
  EXPECT_EQ(text.find("cmd4"), std::string::npos) << text;
  EXPECT_NE(text.find("\n    and 3 more (6 processes): canopy report 'my build.canopy' --growth\n"), std::string::npos)
      << text;
  // The list has every one of the ten, one line each.
  std::string list = growth_list_text(report);
  EXPECT_EQ(lines_in(list), 1u + 10u) << list;
  EXPECT_NE(list.find("    cmd6             pid 26 "), std::string::npos) << list;

  // Five commands fit, with no line for more.
  findings.resize(5);
  std::string five = growth_summary_text(report_of(findings), "r.canopy");
  EXPECT_EQ(lines_in(five), 1u + 5u) << five;
  EXPECT_EQ(five.find("more"), std::string::npos) << five;
}

TEST(GrowthFormat, NoWordOfALeakAndWhereItWasStillHeld) {
  GrowthFinding f = steady("canopy_workload", 17817, 150);
  f.ending = GrowthFinding::Ending::kExited;
  f.idle_after_max_ms = 1516;
  EXPECT_EQ(growth_text(f),
            "grew steadily 166.7 MiB/min for 54.000 s (fit R² 0.99), to 160.0 MiB, and still held it when it exited, "
            "after 1.516 s idle");
  f.ending = GrowthFinding::Ending::kStopped;
  f.idle_after_max_ms = 0;
  EXPECT_EQ(growth_text(f),
            "grew steadily 166.7 MiB/min for 54.000 s (fit R² 0.99), to 160.0 MiB, and still held it when the "
            "recording stopped it");
  f.verdict = GrowthFinding::Verdict::kHeld;
  f.growth_ms = 27'000;
  EXPECT_EQ(growth_text(f),
            "rose 150.0 MiB to 160.0 MiB, not steadily (fit R² 0.99 over 27.000 s of its 1 m 00.0 s), and still held "
            "it when the recording stopped it: state that is kept?");
}

TEST(GrowthFormat, ProcessesThatExitedWhileBusyAreCountedNotListed) {
  GrowthReport report;
  report.judged = 60;
  report.exited_while_busy = 45;
  EXPECT_EQ(growth_summary_text(report, "r.canopy"),
            "  memory growth      none held: of 60 processes judged, 45 processes rose but exited while still busy "
            "with it (the kernel frees it at the exit)\n");
  report.findings.push_back(steady("server", 9, 50));
  std::string text = growth_summary_text(report, "r.canopy");
  EXPECT_EQ(text.rfind("  memory growth:     (45 processes rose but exited while still busy with it: no claim)\n    server", 0),
            0u)
      << text;
}

}  // namespace
}  // namespace canopy::report
