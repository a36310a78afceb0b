// canopy diff's matching and figures on recordings written through the store's own
// Writer, with every figure worked out by hand: which process is whose twin, what is
// only in one run, the order of the rankings, and the text and JSON that show them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "analyze/diff.h"
#include "report/diff_format.h"
#include "store/reader.h"
#include "store/writer.h"
#include "support/temp_dir.h"
#include "support/units.h"

namespace canopy::analyze {
namespace {

using canopy::testing::TempDir;

using testing::kMiB;
constexpr int64_t kStartMs = 1'000'000;

// A process of a hand-made recording. `parent` is an index into the same list.
struct Proc {
  std::string name;
  std::optional<size_t> parent;
  std::vector<std::string> cmdline;
  int64_t start_t_ms = 0;  // since the recording's start
  int64_t peak_mib = 0;
  int64_t cpu_ms = 0;
};

struct Recording {
  std::vector<std::string> command = {"make", "-j8"};
  int64_t wall_ms = 10'000;
  std::vector<Proc> processes;
  // Processes are written in this order (ids follow it); default: as listed.
  std::vector<size_t> write_order;
  // The tree's sum at the one tick; default: every process's peak at once.
  std::optional<int64_t> tick_rss_mib = {};
};

std::string write(const TempDir& dir, const std::string& name, const Recording& r) {
  std::string path = dir.file(name);
  auto writer = store::Writer::create(path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  writer->set_meta({.command = r.command});
  writer->set_meta({.start_ms = kStartMs});
  writer->set_meta({.end_ms = kStartMs + r.wall_ms});
  std::vector<size_t> order = r.write_order;
  if (order.empty()) {
    for (size_t i = 0; i < r.processes.size(); ++i) {
      order.push_back(i);
    }
  }
  std::vector<int64_t> id_of(r.processes.size(), 0);
  int64_t tree_rss_bytes = 0;
  for (size_t i : order) {
    const Proc& p = r.processes[i];
    store::ProcessRow row;
    row.pid = static_cast<pid_t>(100 + i);
    row.start_ticks = static_cast<int64_t>(i);
    row.start_ms = kStartMs + p.start_t_ms;
    if (p.parent) {
      EXPECT_NE(id_of[*p.parent], 0) << "write a parent before its children";
      row.parent_id = id_of[*p.parent];
    }
    row.name = p.name;
    row.cmdline = p.cmdline;
    row.first_seen_ms = row.start_ms;
    row.id = id_of[i] = writer->add_process(row);
    row.end_ms = kStartMs + r.wall_ms;
    row.peak_rss_bytes = p.peak_mib * kMiB;
    row.peak_rss_t_ms = row.start_ms;
    row.cpu_user_ns = p.cpu_ms * 1'000'000;
    row.cpu_system_ns = 0;
    writer->update_process_end(row);
    tree_rss_bytes += p.peak_mib * kMiB;
  }
  if (r.tick_rss_mib) {
    tree_rss_bytes = *r.tick_rss_mib * kMiB;
  }
  writer->add_tick({kStartMs + 100, static_cast<int64_t>(r.processes.size()), tree_rss_bytes, 0, std::nullopt, 0,
                    0, 0, 0, 0});
  EXPECT_TRUE(writer->finish());
  return path;
}

Diff diff_of(const std::string& path_a, const std::string& path_b) {
  auto a = store::Reader::open(path_a);
  auto b = store::Reader::open(path_b);
  EXPECT_TRUE(a && b);
  auto d = diff(*a, *b);
  EXPECT_TRUE(d) << d.error().message;
  return *d;
}

std::vector<std::string> keys(const std::vector<UnmatchedGroup>& groups) {
  std::vector<std::string> out;
  for (const auto& g : groups) {
    out.push_back(g.key + " x" + std::to_string(g.processes.size()));
  }
  return out;
}

TEST(Diff, MatchesByPlaceInTheTreeNotByNameAlone) {
  TempDir dir;
  // A: make runs cc itself. B: make runs cc through sh. The two cc are the same name
  // in different places: not twins.
  Recording a;
  a.processes = {{"make", {}, {"make"}, 0, 5, 100}, {"cc", 0, {"cc", "x.c"}, 10, 100, 2000}};
  Recording b;
  b.processes = {{"make", {}, {"make"}, 0, 6, 100},
                 {"sh", 0, {"sh", "-c", "cc x.c"}, 10, 1, 1},
                 {"cc", 1, {"cc", "x.c"}, 20, 100, 2000}};
  Diff d = diff_of(write(dir, "a.canopy", a), write(dir, "b.canopy", b));

  ASSERT_EQ(d.pairs.size(), 1u);
  EXPECT_EQ(d.pairs[0].key, "make");
  EXPECT_EQ(d.pairs[0].peak_rss_bytes.delta(), kMiB);
  EXPECT_EQ(keys(d.only_a), (std::vector<std::string>{"make/cc x1"}));
  // Highest peak first: the 100 MiB cc before the 1 MiB sh.
  EXPECT_EQ(keys(d.only_b), (std::vector<std::string>{"make/sh/cc x1", "make/sh x1"}));
  EXPECT_EQ(d.only_b[0].max_peak_rss_bytes, 100 * kMiB);
  EXPECT_EQ(d.only_b[0].processes[0].start_t_ms, 20);
  EXPECT_FALSE(d.commands_differ);
}

TEST(Diff, KthSiblingInStartOrderWhenCommandLinesDiffer) {
  TempDir dir;
  // cc1plus writes to a temporary file whose name differs on every run, so no command
  // line matches: the k-th started under make in A is the k-th in B. B's processes are
  // written (and so numbered) in another order than they started, and B has a fourth.
  Recording a;
  a.processes = {{"make", {}, {"make"}, 0, 5, 0},
                 {"cc1plus", 0, {"cc1plus", "-o", "/tmp/ccA1.s"}, 10, 10, 100},
                 {"cc1plus", 0, {"cc1plus", "-o", "/tmp/ccA2.s"}, 20, 20, 200},
                 {"cc1plus", 0, {"cc1plus", "-o", "/tmp/ccA3.s"}, 30, 30, 300}};
  Recording b;
  b.processes = {{"make", {}, {"make"}, 0, 5, 0},
                 {"cc1plus", 0, {"cc1plus", "-o", "/tmp/ccB1.s"}, 10, 11, 110},
                 {"cc1plus", 0, {"cc1plus", "-o", "/tmp/ccB2.s"}, 20, 22, 220},
                 {"cc1plus", 0, {"cc1plus", "-o", "/tmp/ccB3.s"}, 30, 33, 330},
                 {"cc1plus", 0, {"cc1plus", "-o", "/tmp/ccB4.s"}, 40, 40, 400}};
  b.write_order = {0, 4, 2, 3, 1};
  Diff d = diff_of(write(dir, "a.canopy", a), write(dir, "b.canopy", b));

  ASSERT_EQ(d.pairs.size(), 4u);
  EXPECT_EQ(d.matched_by_cmdline, 1);  // make: the same command line
  // Largest growth first: +3, +2, +1 MiB, then make's 0.
  std::vector<std::pair<std::string, std::string>> twins;
  for (const auto& p : d.pairs) {
    twins.emplace_back(p.a.cmdline.back(), p.b.cmdline.back());
  }
  EXPECT_EQ(twins, (std::vector<std::pair<std::string, std::string>>{
                       {"/tmp/ccA3.s", "/tmp/ccB3.s"}, {"/tmp/ccA2.s", "/tmp/ccB2.s"}, {"/tmp/ccA1.s", "/tmp/ccB1.s"},
                       {"make", "make"}}));
  EXPECT_EQ(d.pairs[0].peak_rss_bytes.delta(), 3 * kMiB);
  EXPECT_EQ(d.pairs[0].cpu_ns.delta(), 30'000'000);
  EXPECT_EQ(d.pairs[0].matched_by, MatchedBy::kParent) << "children of the twin makes, in start order";
  EXPECT_TRUE(d.only_a.empty());
  ASSERT_EQ(d.only_b.size(), 1u);
  EXPECT_EQ(d.only_b[0].processes.size(), 1u);
  EXPECT_EQ(d.only_b[0].processes[0].cmdline.back(), "/tmp/ccB4.s");  // the last to start
}

TEST(Diff, SameCommandLineFirstThenStartOrder) {
  TempDir dir;
  // make -j starts the compiles in another order in B, adds baz.c and drops old.c:
  // foo.c and bar.c find their own twins; old.c and baz.c, left over, pair in start order.
  Recording a;
  a.processes = {{"make", {}, {"make"}, 0, 5, 0},
                 {"cc", 0, {"cc", "-c", "foo.c"}, 10, 10, 100},
                 {"cc", 0, {"cc", "-c", "bar.c"}, 20, 20, 200},
                 {"cc", 0, {"cc", "-c", "old.c"}, 30, 7, 70}};
  Recording b;
  b.processes = {{"make", {}, {"make"}, 0, 5, 0},
                 {"cc", 0, {"cc", "-c", "bar.c"}, 10, 25, 200},
                 {"cc", 0, {"cc", "-c", "baz.c"}, 15, 9, 90},
                 {"cc", 0, {"cc", "-c", "foo.c"}, 20, 10, 110}};
  Diff d = diff_of(write(dir, "a.canopy", a), write(dir, "b.canopy", b));

  ASSERT_EQ(d.pairs.size(), 4u);
  EXPECT_EQ(d.matched_by_cmdline, 3);
  const ProcessPair& top = d.pairs[0];
  EXPECT_EQ(top.a.cmdline.back(), "bar.c");
  EXPECT_EQ(top.b.cmdline.back(), "bar.c");
  EXPECT_EQ(top.peak_rss_bytes.delta(), 5 * kMiB);
  EXPECT_EQ(top.matched_by, MatchedBy::kCommandLine);
  const ProcessPair& leftover = d.pairs[1];
  EXPECT_EQ(leftover.a.cmdline.back(), "old.c");
  EXPECT_EQ(leftover.b.cmdline.back(), "baz.c");
  EXPECT_EQ(leftover.peak_rss_bytes.delta(), 2 * kMiB);
  EXPECT_EQ(leftover.matched_by, MatchedBy::kParent) << "children of the twin makes, in start order";
  EXPECT_EQ(d.pairs[2].b.cmdline.back(), "foo.c");  // +0 MiB, but +10 ms of CPU: before make
  EXPECT_EQ(d.pairs[2].a.cmdline.back(), "foo.c");
  EXPECT_EQ(d.pairs[2].a.start_t_ms, 10);
  EXPECT_EQ(d.pairs[2].b.start_t_ms, 20);
  EXPECT_TRUE(d.only_a.empty());
  EXPECT_TRUE(d.only_b.empty());
}

TEST(Diff, CompilesWithTemporaryOutputsPairByTheirSourceFiles) {
  TempDir dir;
  // gcc's cc1 writes to a /tmp name of its own on every run, and make -j starts f2.c
  // first in B: start order would pair f1.c with f2.c.
  Recording a;
  a.processes = {{"make", {}, {"make"}, 0, 5, 0},
                 {"cc1", 0, {"cc1", "-quiet", "f1.c", "-o", "/tmp/ccA1.s"}, 10, 10, 100},
                 {"cc1", 0, {"cc1", "-quiet", "f2.c", "-o", "/tmp/ccA2.s"}, 20, 40, 400}};
  Recording b;
  b.processes = {{"make", {}, {"make"}, 0, 5, 0},
                 {"cc1", 0, {"cc1", "-quiet", "f2.c", "-o", "/tmp/ccB1.s"}, 10, 41, 400},
                 {"cc1", 0, {"cc1", "-quiet", "f1.c", "-o", "/tmp/ccB2.s"}, 20, 12, 100}};
  Diff d = diff_of(write(dir, "a.canopy", a), write(dir, "b.canopy", b));

  ASSERT_EQ(d.pairs.size(), 3u);
  EXPECT_EQ(d.matched_by_short_command, 2);
  EXPECT_EQ(d.pairs[0].matched_by, MatchedBy::kShortCommand);
  EXPECT_EQ(d.pairs[0].a.cmdline[2], "f1.c");  // +2 MiB, the largest growth
  EXPECT_EQ(d.pairs[0].b.cmdline[2], "f1.c");
  EXPECT_EQ(d.pairs[1].a.cmdline[2], "f2.c");
  EXPECT_EQ(d.pairs[1].b.cmdline[2], "f2.c");
}

TEST(Diff, ChildrenOfTwinsPairWhenNothingElseTellsThem) {
  TempDir dir;
  // Each cc runs an `as` whose command line was never read (gone before canopy got to
  // it); B starts f2.c first. Each `as` is still the one its twin cc ran.
  Recording a;
  a.processes = {{"make", {}, {"make"}, 0, 5, 0},
                 {"cc", 0, {"cc", "-c", "f1.c"}, 10, 3, 10},
                 {"as", 1, {}, 15, 5, 10},
                 {"cc", 0, {"cc", "-c", "f2.c"}, 20, 3, 10},
                 {"as", 3, {}, 25, 9, 10}};
  Recording b;
  b.processes = {{"make", {}, {"make"}, 0, 5, 0},
                 {"cc", 0, {"cc", "-c", "f2.c"}, 10, 3, 10},
                 {"as", 1, {}, 12, 9, 10},
                 {"cc", 0, {"cc", "-c", "f1.c"}, 20, 3, 10},
                 {"as", 3, {}, 22, 5, 10}};
  Diff d = diff_of(write(dir, "a.canopy", a), write(dir, "b.canopy", b));

  ASSERT_EQ(d.pairs.size(), 5u);
  EXPECT_EQ(d.matched_by_cmdline, 3);
  EXPECT_EQ(d.matched_by_parent, 2);
  for (const auto& p : d.pairs) {
    EXPECT_EQ(p.peak_rss_bytes.delta(), 0) << p.key << " pid " << p.a.pid << " met pid " << p.b.pid;
  }
  std::string text = report::diff_text(d, "a.canopy", "b.canopy", 10);
  EXPECT_NE(text.find("5 matched (3 by command line, 2 by parent), 0 only in A, 0 only in B"),
            std::string::npos)
      << text;
}

TEST(Diff, MemoryRankingAndCpuRanking) {
  TempDir dir;
  // Four workers under a root, each with its own command line:
  //   w1: +30 MiB, +0 s;  w2: +0, +5 s;  w3: -10 MiB, +1 s;  w4: +0, +2 s.
  // Memory order: w1; then w2 and w4 (both +0, CPU breaks the tie: +5 s first); w3
  // shrank, so last. CPU order: w2 (+5 s), w4 (+2 s), w3 (+1 s), w1 (+0), then the
  // root (+0, and no memory change: after w1's +30 MiB).
  Recording a;
  a.processes = {{"root", {}, {"root"}, 0, 1, 0},       {"w", 0, {"w", "1"}, 1, 10, 1000},
                 {"w", 0, {"w", "2"}, 2, 10, 1000},     {"w", 0, {"w", "3"}, 3, 20, 1000},
                 {"w", 0, {"w", "4"}, 4, 10, 1000}};
  Recording b;
  b.processes = {{"root", {}, {"root"}, 0, 1, 0},       {"w", 0, {"w", "1"}, 1, 40, 1000},
                 {"w", 0, {"w", "2"}, 2, 10, 6000},     {"w", 0, {"w", "3"}, 3, 10, 2000},
                 {"w", 0, {"w", "4"}, 4, 10, 3000}};
  Diff d = diff_of(write(dir, "a.canopy", a), write(dir, "b.canopy", b));

  std::vector<std::string> memory_order;
  for (const auto& p : d.pairs) {
    memory_order.push_back(p.b.cmdline.back());
  }
  EXPECT_EQ(memory_order, (std::vector<std::string>{"1", "2", "4", "root", "3"}));
  std::vector<std::string> cpu_order;
  for (size_t i : d.by_cpu_growth) {
    cpu_order.push_back(d.pairs[i].b.cmdline.back());
  }
  EXPECT_EQ(cpu_order, (std::vector<std::string>{"2", "4", "3", "1", "root"}));
  EXPECT_EQ(d.pairs[4].peak_rss_bytes.delta(), -10 * kMiB);
  EXPECT_DOUBLE_EQ(*d.pairs[4].peak_rss_bytes.relative(), -0.5);

  // The text shows each ranking in that order, and --top bounds both.
  std::string text = report::diff_text(d, "a.canopy", "b.canopy", 2);
  size_t memory = text.find("memory: largest growth first (2 of 5;");
  size_t cpu = text.find("CPU time: largest growth first (2 of 5;");
  ASSERT_NE(memory, std::string::npos) << text;
  ASSERT_NE(cpu, std::string::npos) << text;
  EXPECT_NE(text.find("+30.0 MiB", memory), std::string::npos);
  EXPECT_LT(text.find("w  1", memory), text.find("w  2", memory));
  EXPECT_EQ(text.find("w  3"), std::string::npos) << "bounded to 2 rows per list:\n" << text;
  EXPECT_LT(text.find("w  2", cpu), text.find("w  4", cpu));
  EXPECT_NE(text.find("+5.000 s", cpu), std::string::npos) << text;
}

TEST(Diff, RelativeChangeFromZero) {
  EXPECT_EQ(Change({0, 0}).relative(), 0.0);
  EXPECT_EQ(Change({0, 5}).relative(), std::nullopt);
  EXPECT_DOUBLE_EQ(*Change({4, 6}).relative(), 0.5);
  EXPECT_DOUBLE_EQ(*Change({4, 0}).relative(), -1.0);

  TempDir dir;
  // A's worker used no CPU it could measure and no memory yet; B's did.
  Recording a;
  a.processes = {{"root", {}, {"root"}, 0, 1, 10}, {"w", 0, {"w"}, 1, 0, 0}};
  Recording b;
  b.processes = {{"root", {}, {"root"}, 0, 1, 10}, {"w", 0, {"w"}, 1, 8, 40}};
  Diff d = diff_of(write(dir, "a.canopy", a), write(dir, "b.canopy", b));
  ASSERT_EQ(d.pairs.size(), 2u);
  EXPECT_EQ(d.pairs[0].key, "root/w");
  EXPECT_EQ(d.pairs[0].peak_rss_bytes.relative(), std::nullopt);

  auto json = nlohmann::json::parse(report::diff_json(d, "a.canopy", "b.canopy"));
  EXPECT_EQ(json["pairs"][0]["peak_rss_bytes"]["a"], 0);
  EXPECT_EQ(json["pairs"][0]["peak_rss_bytes"]["b"], 8 * kMiB);
  EXPECT_EQ(json["pairs"][0]["peak_rss_bytes"]["change"], 8 * kMiB);
  EXPECT_TRUE(json["pairs"][0]["peak_rss_bytes"]["relative"].is_null());
  EXPECT_EQ(json["pairs"][0]["cpu_ns"]["b"], 40'000'000);
  EXPECT_EQ(json["pairs"][1]["peak_rss_bytes"]["relative"], 0.0);  // the root: 0 to 0 change

  std::string text = report::diff_text(d, "a.canopy", "b.canopy", 10);
  EXPECT_NE(text.find("       0 B    8.0 MiB    +8.0 MiB   from 0"), std::string::npos) << text;
}

TEST(Diff, TotalsAndDifferentCommands) {
  TempDir dir;
  Recording a;
  a.wall_ms = 2'000;
  a.processes = {{"sh", {}, {"sh"}, 0, 2, 100}, {"w", 0, {"w", "100"}, 1, 100, 900}};
  Recording b;
  b.command = {"make", "-j4"};
  b.wall_ms = 3'000;
  b.processes = {{"sh", {}, {"sh"}, 0, 2, 100},
                 {"w", 0, {"w", "200"}, 1, 200, 1900},
                 {"w", 0, {"w", "7"}, 2, 7, 0},
                 {"w", 0, {"w", "9"}, 3, 9, 0}};
  Diff d = diff_of(write(dir, "a.canopy", a), write(dir, "b.canopy", b));

  EXPECT_TRUE(d.commands_differ);
  EXPECT_EQ(d.totals.wall_ms.delta(), 1'000);
  EXPECT_DOUBLE_EQ(*d.totals.wall_ms.relative(), 0.5);
  // No kernel figure in these recordings: CPU is the sum over processes.
  EXPECT_EQ(d.totals.cpu_ns.a, 1'000'000'000);
  EXPECT_EQ(d.totals.cpu_ns.b, 2'000'000'000);
  EXPECT_EQ(d.totals.peak_tree_rss_bytes.a, 102 * kMiB);
  EXPECT_EQ(d.totals.peak_tree_rss_bytes.b, 218 * kMiB);
  EXPECT_EQ(d.totals.processes.delta(), 2);
  EXPECT_FALSE(d.totals.cgroup_peak_bytes);
  ASSERT_EQ(d.only_b.size(), 1u);  // two processes, one key
  EXPECT_EQ(d.only_b[0].processes.size(), 2u);
  EXPECT_EQ(d.only_b[0].max_peak_rss_bytes, 9 * kMiB);

  std::string text = report::diff_text(d, "a.canopy", "b.canopy", 10);
  EXPECT_NE(text.find("\n  note: the commands differ"), std::string::npos) << text;
  EXPECT_NE(text.find("  CPU                      1.000 s       2.000 s      +1.000 s  +100.0%\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("only in B: 2 processes, highest peak first\n"), std::string::npos) << text;
  EXPECT_NE(text.find("         2    9.0 MiB    0.000 s  sh/w\n"), std::string::npos) << text;
}

TEST(Diff, ATreePeakNoTickSawIsMarkedAtLeast) {
  TempDir dir;
  Recording a;
  a.processes = {{"sh", {}, {"sh"}, 0, 2, 100}, {"w", 0, {"w", "100"}, 1, 100, 900}};
  Recording b = a;
  b.processes[1].peak_mib = 150;
  b.tick_rss_mib = 40;  // w's 150 MiB fell between ticks: the summary floors the tree's peak at it
  Diff d = diff_of(write(dir, "a.canopy", a), write(dir, "b.canopy", b));

  EXPECT_EQ(d.totals.peak_tree_rss_bytes.a, 102 * kMiB);
  EXPECT_EQ(d.totals.peak_tree_rss_bytes.b, 150 * kMiB);
  EXPECT_FALSE(d.totals.peak_tree_at_least_a);
  EXPECT_TRUE(d.totals.peak_tree_at_least_b);
  std::string text = report::diff_text(d, "a.canopy", "b.canopy", 10);
  // The mark takes two of B's 13 columns, so the figures stay in line.
  EXPECT_NE(text.find("  peak memory            102.0 MiB   ≥ 150.0 MiB     +48.0 MiB   +47.1%\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\n  ≥ at least: no tick saw the tree at its peak"), std::string::npos) << text;
  auto json = nlohmann::json::parse(report::diff_json(d, "a.canopy", "b.canopy"));
  EXPECT_EQ(json["totals"]["peak_tree_at_least"], nlohmann::json({{"a", false}, {"b", true}}));

  std::string same = report::diff_text(diff_of(dir.file("a.canopy"), dir.file("a.canopy")), "a", "a", 10);
  EXPECT_EQ(same.find("≥"), std::string::npos) << same;
}

TEST(Diff, EveryLineFitsOneHundredColumns) {
  TempDir dir;
  // A deep chain of long names, and a long command line: cut, not wrapped.
  Recording r;
  r.processes.push_back({"make", {}, {"make"}, 0, 1, 0});
  for (size_t i = 1; i < 12; ++i) {
    r.processes.push_back({"subprocess-" + std::to_string(i), i - 1,
                           {"x", std::string(200, 'a'), "--flag"}, static_cast<int64_t>(i), 1, 0});
  }
  std::string path = write(dir, "a.canopy", r);
  Diff d = diff_of(path, path);
  std::istringstream text(report::diff_text(d, "a.canopy", "a.canopy", 100));
  std::string line;
  bool cut = false;
  while (std::getline(text, line)) {
    EXPECT_LE(line.size(), 100u) << line;
    cut = cut || (line.find("  ...") != std::string::npos && line.find("/subprocess-11  aaaa") != std::string::npos &&
                  line.ends_with("..."));
  }
  EXPECT_TRUE(cut) << "the deepest key keeps its end, and its arguments their start";
}

TEST(Diff, InterruptedRecordingTakesPeaksFromSamples) {
  TempDir dir;
  Recording a;
  a.processes = {{"w", {}, {"w"}, 0, 10, 100}};
  std::string path_a = write(dir, "a.canopy", a);
  // B's recorder was killed: no end, no peaks in the process table, only samples.
  std::string path_b = dir.file("b.canopy");
  {
    auto writer = store::Writer::create(path_b, false);
    ASSERT_TRUE(writer);
    writer->set_meta({.command = std::vector<std::string>{"make", "-j8"}});
    writer->set_meta({.start_ms = kStartMs});
    store::ProcessRow row;
    row.pid = 100;
    row.start_ms = row.first_seen_ms = kStartMs;
    row.name = "w";
    row.cmdline = {"w"};
    int64_t id = writer->add_process(row);
    for (int64_t mib : {5, 25, 15}) {
      store::SampleValues v;
      v[store::kRssAnonBytes] = mib * kMiB;
      v[store::kRssFileBytes] = 0;
      v[store::kRssShmemBytes] = 0;
      v[store::kCpuUserNs] = mib * 10'000'000;
      v[store::kCpuSystemNs] = 0;
      writer->add_sample(kStartMs + mib, id, v);
    }
    ASSERT_TRUE(writer->finish());
  }
  Diff d = diff_of(path_a, path_b);
  EXPECT_FALSE(d.complete_b);
  ASSERT_EQ(d.pairs.size(), 1u);
  EXPECT_EQ(d.pairs[0].peak_rss_bytes.b, 25 * kMiB);  // the highest sample
  EXPECT_EQ(d.pairs[0].cpu_ns.b, 150'000'000);         // the last sample's
  EXPECT_NE(report::diff_text(d, "a", "b", 10).find("note: B was interrupted"), std::string::npos);
}

}  // namespace
}  // namespace canopy::analyze
