// canopy diff on two real recordings of the same job, where one child wants twice the
// memory in the second run: that child must lead the list, with the growth it made.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/text.h"
#include "integration/harness.h"

namespace canopy::testing {
namespace {

// Two children of one shell; the second holds $CHILD_MIB MiB. The command is the same
// text in both runs (the shell expands the variable), as after an update that changed
// what a program does, not how it is called. The two hold together once both have
// touched their memory, so the tree's peak is both at their height whatever the
// machine's page-fault speed (under ASan, 200 MiB once took longer than the other's
// 600 ms hold).
Finished record_job(const std::string& path, const std::string& child_mib) {
  std::string w = "'" + kWorkload + "'";
  std::string rendezvous = path + ".holders";
  std::filesystem::create_directory(rendezvous);
  RunOptions options;
  options.env["CHILD_MIB"] = child_mib;
  options.env["CANOPY_WORKLOAD_HOLD_WITH"] = rendezvous + " 2";
  return run({kCanopy, "record", "-q", "-o", path, "sh", "-c",
              w + " hold 50 600 & " + w + " hold \"$CHILD_MIB\" 600 & wait"},
             options);
}

TEST(Diff, NamesTheChildThatDoubledFirst) {
  TempDir dir;
  std::string a = dir.file("a.canopy");
  std::string b = dir.file("b.canopy");
  ASSERT_EQ(record_job(a, "100").exit_status, 0);
  ASSERT_EQ(record_job(b, "200").exit_status, 0);

  auto json_run = run({kCanopy, "diff", "--json", a, b});
  ASSERT_EQ(json_run.exit_status, 0) << json_run.err;
  auto json = nlohmann::json::parse(json_run.out);
  EXPECT_EQ(json["commands_differ"], false);
  EXPECT_EQ(json["totals"]["processes"]["a"], 3);
  EXPECT_EQ(json["totals"]["processes"]["b"], 3);
  EXPECT_EQ(json["matched"], 3);
  EXPECT_TRUE(json["only_a"].empty());
  EXPECT_TRUE(json["only_b"].empty());

  const auto& first = json["pairs"][0];
  EXPECT_EQ(first["key"], "sh/canopy_workload");
  EXPECT_EQ(first["a"]["cmdline"], (std::vector<std::string>{kWorkload, "hold", "100", "600"}));
  EXPECT_EQ(first["b"]["cmdline"], (std::vector<std::string>{kWorkload, "hold", "200", "600"}));
  // The arguments differ but for the first, which is all a program canopy does not
  // know is told apart by.
  EXPECT_EQ(first["matched_by"], "short command");
  // The same binary touching 100 MiB more: within 4 MiB of it (what else differs
  // between the two children is page tables and what a sample or exit record caught).
  int64_t growth_bytes = first["peak_rss_bytes"]["change"];
  EXPECT_GE(growth_bytes, mib(96));
  EXPECT_LE(growth_bytes, mib(104));
  EXPECT_GE(first["peak_rss_bytes"]["a"].get<int64_t>(), mib(100));
  EXPECT_GE(first["peak_rss_bytes"]["b"].get<int64_t>(), mib(200));
  double relative = first["peak_rss_bytes"]["relative"];
  EXPECT_NEAR(relative, 1.0, 0.06);
  // Its 50 MiB sibling found its twin by command line, and barely changed.
  const auto& sibling = json["pairs"][1]["b"]["cmdline"][2] == "50" ? json["pairs"][1] : json["pairs"][2];
  EXPECT_EQ(sibling["matched_by"], "command line");
  EXPECT_LE(std::abs(sibling["peak_rss_bytes"]["change"].get<int64_t>()), mib(4));
  // The tree's peak grew by the same 100 MiB (both children at their height at once).
  int64_t tree_growth_bytes = json["totals"]["peak_tree_rss_bytes"]["change"];
  EXPECT_GE(tree_growth_bytes, mib(92));
  EXPECT_LE(tree_growth_bytes, mib(108));

  // The terminal names the same child first, with the same figure.
  auto text_run = run({kCanopy, "diff", a, b});
  ASSERT_EQ(text_run.exit_status, 0) << text_run.err;
  const std::string& text = text_run.out;
  EXPECT_EQ(text.find("the commands differ"), std::string::npos) << text;
  size_t ranking = text.find("  memory: largest growth first\n");
  ASSERT_NE(ranking, std::string::npos) << text;
  size_t header_end = text.find('\n', text.find('\n', ranking + 1) + 1);
  std::string first_row = text.substr(header_end + 1, text.find('\n', header_end + 1) - header_end - 1);
  EXPECT_NE(first_row.find("+" + format_bytes(growth_bytes)), std::string::npos) << text;
  EXPECT_NE(first_row.find("sh/canopy_workload  hold 200 600"), std::string::npos) << text;
  EXPECT_NE(text.find("3 matched (2 by command line, 1 by short command), 0 only in A, 0 only in B"), std::string::npos)
      << text;

  // --top cuts each ranking and says how many it left out; --all shows every row.
  auto top = run({kCanopy, "diff", "--top", "1", a, b});
  EXPECT_NE(top.out.find("  memory: largest growth first (1 of 3; --all or --top N for more)\n"), std::string::npos)
      << top.out;
  auto all = run({kCanopy, "diff", "--top", "1", "--all", a, b});
  EXPECT_EQ(all.exit_status, 2) << "--all excludes --top";
  auto every = run({kCanopy, "diff", "--all", a, b});
  EXPECT_EQ(every.out, text) << "three pairs: the default ten shows them all, as --all does";
}

TEST(Diff, BadInputNamesTheSideAndDifferentCommandsStillDiff) {
  TempDir dir;
  std::string good = dir.file("good.canopy");
  std::string other = dir.file("other.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", good, kWorkload, "hold", "1", "10"}).exit_status, 0);
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", other, kWorkload, "exit", "0"}).exit_status, 0);

  auto missing = run({kCanopy, "diff", good, dir.file("missing.canopy")});
  EXPECT_EQ(missing.exit_status, 1);
  EXPECT_EQ(missing.err,
            "canopy: recording B: cannot open '" + dir.file("missing.canopy") + "': No such file or directory\n");
  EXPECT_EQ(missing.out, "");

  std::string text = dir.file("notes.canopy");
  std::ofstream(text) << "just some text\n" << std::string(4096, '.');
  auto not_recording = run({kCanopy, "diff", text, good});
  EXPECT_EQ(not_recording.exit_status, 1);
  EXPECT_EQ(not_recording.err,
            "canopy: recording A: cannot open '" + text + "': not a canopy recording (not an SQLite file)\n");

  std::string cut = dir.file("cut.canopy");
  std::filesystem::copy_file(good, cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) / 2);
  auto corrupt = run({kCanopy, "diff", good, cut});
  EXPECT_EQ(corrupt.exit_status, 1);
  EXPECT_EQ(std::count(corrupt.err.begin(), corrupt.err.end(), '\n'), 1) << corrupt.err;
  EXPECT_EQ(corrupt.err.rfind("canopy: recording B: cannot open '" + cut + "': the recording is truncated or corrupt", 0),
            0u)
      << corrupt.err;

  auto differ = run({kCanopy, "diff", good, other});
  EXPECT_EQ(differ.exit_status, 0) << differ.err;
  EXPECT_NE(differ.out.find("\n  note: the commands differ;"), std::string::npos) << differ.out;
  // The root is canopy_workload in both: matched, though its arguments differ.
  EXPECT_NE(differ.out.find("1 matched (1 by start order), 0 only in A"), std::string::npos) << differ.out;
}

TEST(Diff, SaysWhenTheTwoWereRecordedDifferently) {
  // The heap profiler's memory in every process, or a longer interval that misses more
  // of a peak, would read as a change of the program's own.
  TempDir dir;
  std::string plain = dir.file("plain.canopy");
  std::string profiled = dir.file("profiled.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", plain, kWorkload, "exit", "0"}).exit_status, 0);
  ASSERT_EQ(
      run({kCanopy, "record", "-q", "--heap", "-i", "250ms", "-o", profiled, kWorkload, "exit", "0"}).exit_status, 0);
  auto text = run({kCanopy, "diff", plain, profiled});
  ASSERT_EQ(text.exit_status, 0) << text.err;
  EXPECT_NE(text.out.find("\n  note: only B was recorded with --heap: the profiler in each of its processes adds "
                          "memory and CPU time of its own\n  note: A was sampled every 100 ms and B every 250 ms: "
                          "the longer interval sees less of a short peak\n"),
            std::string::npos)
      << text.out;
  auto json = nlohmann::json::parse(run({kCanopy, "diff", "--json", plain, profiled}).out);
  EXPECT_EQ(json["heap_profiled"], nlohmann::json({{"a", false}, {"b", true}}));
  EXPECT_EQ(json["interval_ms"], nlohmann::json({{"a", 100}, {"b", 250}}));
  auto same = run({kCanopy, "diff", plain, plain});
  EXPECT_EQ(same.out.find("note:"), std::string::npos) << same.out;
}

}  // namespace
}  // namespace canopy::testing
