// What the summary prints: the command line as a shell would run it, a line for each
// log added, the words that tell a process from others of its name, the exact tree
// peak beside a process's own, and where the JSON says a process's name came from.
#include "report/summary_format.h"

#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace canopy::report {
namespace {

TEST(ShellJoin, QuotesWhatAShellWouldSplitOrExpand) {
  EXPECT_EQ(shell_join({"make", "-j8"}), "make -j8");
  EXPECT_EQ(shell_join({"sh", "-c", "a; b"}), "sh -c 'a; b'");
  EXPECT_EQ(shell_join({"echo", ""}), "echo ''");
  // A quote inside ends the quoting, is escaped, and the quoting starts again.
  EXPECT_EQ(shell_join({"sh", "-c", "'/bin/x' hold"}), "sh -c ''\\''/bin/x'\\'' hold'");
  // What a shell would expand or read as a comment, unquoted.
  EXPECT_EQ(shell_join({"echo", "#x", "~", "a[1]", "{a,b}", "!!", "a=b"}), "echo '#x' '~' 'a[1]' '{a,b}' '!!' a=b");
}

TEST(ShellJoin, WhatATerminalWouldObeyIsEscapedAsTheShellReadsIt) {
  EXPECT_EQ(shell_join({"python3", "-c", "\nimport time\nprint('x')\n"}),
            "python3 -c $'\\nimport time\\nprint(\\'x\\')\\n'");
  EXPECT_EQ(shell_join({"printf", "a\tb\\c\x1b[0m\x7f"}), "printf $'a\\tb\\\\c\\e[0m\\x7f'");
  // A byte that is not UTF-8, and a C1 control, which some terminals obey.
  EXPECT_EQ(shell_join({"touch", "caf\xe9", "a\xc2\x9b"}), "touch $'caf\\xe9' $'a\\xc2\\x9b'");
}

// The promise itself: bash reads the line back into the same words.
TEST(ShellJoin, BashReadsTheLineBackIntoTheSameWords) {
  const std::vector<std::string> words = {"python3", "-c", "\nimport sys\nprint('it''s', sys.argv)\n",
                                          "a b", "$HOME", "`id`", "#x", "~", "*", "\t\r\x01\x7f\\",
                                          "caf\xc3\xa9", "caf\xe9", "\xc2\x9b\x1b[2J", "", "-"};
  // printf prints each word and a NUL; the test splits them back.
  const std::string script = "printf '%s\\0' " + shell_join(words);
  FILE* pipe = popen(("bash -c " + shell_join({script})).c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
    out.append(buffer, n);
  }
  ASSERT_EQ(pclose(pipe), 0) << script;
  std::vector<std::string> read_back;
  for (size_t begin = 0, end; (end = out.find('\0', begin)) != std::string::npos; begin = end + 1) {
    read_back.push_back(out.substr(begin, end - begin));
  }
  EXPECT_EQ(read_back, words) << script;
}

TEST(SummaryText, AKillingSignalIsNamed) {
  analyze::Summary s;
  s.mode = "run";
  s.command = {"sleep", "5"};
  s.exit_signal = 15;
  const std::string text = summary_text(s, "r.canopy");
  EXPECT_NE(text.find("\n  exit               killed by signal 15 (SIGTERM)\n"), std::string::npos) << text;
}

TEST(SummaryText, OneLineForEachLogAdded) {
  analyze::Summary s;
  s.mode = "run";
  s.command = {"make"};
  EXPECT_EQ(summary_text(s, "r.canopy").find("logs"), std::string::npos) << "no log, no line";
  s.logs.push_back({1, "app.log", "lines", 0, 11973, 0});
  s.logs.push_back({2, "trace.json", "cmake-trace", 0, 1, 1});
  EXPECT_NE(summary_text(s, "r.canopy")
                .find("  logs               app.log: 11973 events (lines)\n"
                      "                     trace.json: 1 event (cmake-trace), 1 outside the recording's time span\n"
                      "  recording          r.canopy\n"),
            std::string::npos)
      << summary_text(s, "r.canopy");
  nlohmann::json logs = summary_json_object(s, "r.canopy")["logs"];
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_EQ(logs[1]["name"], "trace.json");
  EXPECT_EQ(logs[1]["events"], 1);
  EXPECT_EQ(logs[1]["outside_span"], 1);
}

TEST(ProcessWords, AKnownProgramsShortCommandElseItsArguments) {
  EXPECT_EQ(process_words({"/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "-quiet", "-imultiarch", "x86_64-linux-gnu", "f3.c",
                           "-o", "/tmp/cc.s"},
                          "cc1"),
            "f3.c");
  EXPECT_EQ(process_words({"canopy_workload", "hold", "200", "600"}, "canopy_workload"), "hold 200 600");
  // An absolute path by its last two parts; the whole cut to about 40 characters.
  EXPECT_EQ(process_words({"/b/w/x", "parent", "/work/main/build/tests/nofp"}, "x"), "parent tests/nofp");
  EXPECT_EQ(process_words({"x", std::string(50, 'a')}, "x"), std::string(37, 'a') + "...");
  EXPECT_EQ(process_words({"make"}, "make"), "");
  EXPECT_EQ(process_words({}, "true"), "");
}

// Five cc1 by pid alone tell nothing of which source file peaked: the words do.
TEST(SummaryText, EachHighestPeakSaysWhichProcessOfItsNameItIs) {
  analyze::Summary s;
  s.mode = "run";
  s.command = {"make"};
  analyze::ProcessPeak cc1;
  cc1.name = "cc1";
  cc1.pid = 10732;
  cc1.peak_rss_bytes = 29 << 20;
  cc1.peak_t_ms = 140;
  cc1.cmdline = {"/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "-quiet", "f5.c", "-o", "/tmp/cc.s"};
  s.top = {cc1};
  EXPECT_NE(summary_text(s, "r.canopy").find("\n      29.0 MiB  cc1              pid 10732    at +0.140 s  f5.c\n"),
            std::string::npos)
      << summary_text(s, "r.canopy");
}

// Each target of a CMake unity build compiles a Unity/unity_0_cxx.cxx: the peaks of one
// name whose words read alike show the target's directory too; one that differs already
// keeps its two parts.
TEST(SummaryText, HighestPeaksOfOneNameThatReadAlikeShowMoreOfTheirPath) {
  analyze::Summary s;
  s.mode = "run";
  s.command = {"cmake", "--build", "b"};
  auto cc1plus = [](int64_t pid, const std::string& source) {
    analyze::ProcessPeak p;
    p.name = "cc1plus";
    p.pid = pid;
    p.peak_rss_bytes = 900 << 20;
    p.peak_t_ms = 1000;
    p.cmdline = {"/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "-quiet", source, "-o", "/tmp/cc.s"};
    return p;
  };
  s.top = {cc1plus(5643, "/b/CMakeFiles/canopy_store.dir/Unity/unity_0_cxx.cxx"),
           cc1plus(5522, "/b/CMakeFiles/canopy_record.dir/Unity/unity_0_cxx.cxx"),
           cc1plus(5619, "/b/src/main.cpp")};
  const std::string text = summary_text(s, "r.canopy");
  EXPECT_NE(text.find("pid 5643     at +1.000 s  canopy_store.dir/Unity/unity_0_cxx.cxx\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("pid 5522     at +1.000 s  canopy_record.dir/Unity/unity_0_cxx.cxx\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("pid 5619     at +1.000 s  src/main.cpp\n"), std::string::npos) << text;
}

// A summary of `make` run in a cgroup of its own, whose peak each test sets.
analyze::Summary make_in_a_cgroup() {
  analyze::Summary s;
  s.mode = "run";
  s.command = {"make"};
  s.cgroup = "cgroup v1 (memory, cpuacct, freezer) /sys/fs/cgroup/memory/canopy";
  return s;
}

// The cgroup is charged for a page by whoever touched it first: a compiler whose
// libraries were in memory before the build has a larger resident peak of its own
// than the exact peak of the tree it ran in, and the line says why.
TEST(SummaryText, ATreePeakBelowAProcesssOwnSaysWhy) {
  analyze::Summary s = make_in_a_cgroup();
  s.cgroup_peak_bytes = 13 << 20;
  s.peak_tree_rss_bytes = 14 << 20;
  analyze::ProcessPeak cc1;
  cc1.name = "cc1";
  cc1.peak_rss_bytes = 29 << 20;
  s.top = {cc1};
  const std::string why = "; less than cc1's 29.0 MiB resident: pages first touched outside the tree";
  EXPECT_NE(summary_text(s, "r.canopy").find("13.0 MiB exact, from its cgroup v1 (shared pages once, page cache included)" + why),
            std::string::npos)
      << summary_text(s, "r.canopy");
  s.cgroup_peak_bytes = 30 << 20;
  EXPECT_EQ(summary_text(s, "r.canopy").find(why), std::string::npos) << "a tree peak above every process's";
}

// Ten workers that share one 100 MiB mapping: each one's resident memory counts it, the
// cgroup once.
TEST(SummaryText, ACgroupPeakFarBelowTheSampledSumSaysTheSumCountsSharedPagesInEach) {
  analyze::Summary s = make_in_a_cgroup();
  s.cgroup_peak_bytes = 104 << 20;
  s.sampled_peak_tree_rss_bytes = 1100 << 20;
  s.peak_tree_rss_bytes = 1100 << 20;
  const std::string why = "; the peak memory above counts a page its processes share in each of them";
  EXPECT_NE(summary_text(s, "r.canopy").find("(shared pages once, page cache included)" + why), std::string::npos)
      << summary_text(s, "r.canopy");
  s.peak_tree_rss_bytes = s.sampled_peak_tree_rss_bytes = 200 << 20;
  EXPECT_EQ(summary_text(s, "r.canopy").find(why), std::string::npos) << "less than twice the exact peak";
}

// Ten workers of 30 MiB each, between ticks: the cgroup saw the 300 MiB they held
// together; the peak memory line only what one of them held alone.
TEST(SummaryText, ACgroupPeakFarAboveTheTreesPeakSaysTheFigureMissedIt) {
  analyze::Summary s = make_in_a_cgroup();
  s.cgroup_peak_bytes = 300 << 20;
  s.cgroup_oom_kills = 1;
  s.sampled_peak_tree_rss_bytes = 2 << 20;
  s.peak_tree_rss_bytes = 2 << 20;
  EXPECT_NE(summary_text(s, "r.canopy").find("; the sampled sum missed it: 2.0 MiB at its highest"), std::string::npos)
      << summary_text(s, "r.canopy");
  analyze::ProcessPeak worker;
  worker.name = "worker";
  worker.pid = 7;
  worker.peak_rss_bytes = 30 << 20;
  s.peak_tree_rss_bytes = worker.peak_rss_bytes;
  s.peak_tree_process = worker;
  EXPECT_NE(summary_text(s, "r.canopy").find("; the peak memory above missed it: at least 30.0 MiB;"),
            std::string::npos)
      << summary_text(s, "r.canopy");
}

TEST(SummaryJson, SaysWhereEachTopProcesssNameCameFromAndItsCommandLine) {
  analyze::Summary s;
  analyze::ProcessPeak read;
  read.name = "cc1";
  read.cmdline = {"cc1", "f5.c"};
  analyze::ProcessPeak gone;
  gone.name = "true";
  gone.named_from_exit_record = true;  // ended before canopy could read its own
  s.top = {read, gone};
  auto json = summary_json_object(s, "r.canopy");
  EXPECT_EQ(json["top"][0]["name_source"], "proc");
  EXPECT_EQ(json["top"][1]["name_source"], "exit record");
  // Its command line, for a script to tell one cc1 from another.
  EXPECT_EQ(json["top"][0]["cmdline"], nlohmann::json({"cc1", "f5.c"}));
  EXPECT_EQ(json["top"][1]["cmdline"], nlohmann::json::array());
}

}  // namespace
}  // namespace canopy::report
