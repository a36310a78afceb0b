// canopy heap's verdicts, growth and ages on the heap workload
// (tests/workload/heap_workload.cpp), whose allocations' fates are known: its three leak
// sites leak in four rounds 250 ms apart and keep every block; its cache recycles 200
// entries; its temporary peak is held 250 ms, then given back.
//
// Sampling at 4 KiB, as heap_test.cpp does, every site's estimate is within 25% of
// its truth but with probability below 3e-10 (its comment gives the bound). A
// verdict needs at least kVerdictMinSampled sampled allocations alive when the stack
// held half its end, and a rise at three snapshots: each round of a site has over 200
// expected samples (A: 925 blocks x 0.217), so a round with none has probability
// below 0.783^925 < 1e-90, and the cache's 200 entries hold 77 expected samples,
// fewer than 5 with probability below 1e-25.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "integration/harness.h"
#include "integration/heap_sites.h"

namespace canopy::testing {
namespace {

// Each leak site's bytes, by its function's short name.
std::map<std::string, double> leak_truth() {
  std::map<std::string, double> truth;
  for (const HeapSite& site : kSites) {
    std::string function = site.function;
    truth[function.substr(function.rfind("::") + 2)] = static_cast<double>(site.block_bytes * site.blocks);
  }
  return truth;
}
const std::map<std::string, double> kLeakTruth = leak_truth();

// "(anonymous namespace)::leak_site_a" -> "leak_site_a".
std::string short_name(const nlohmann::json& stack) {
  std::string name = stack["frames"].empty() ? "" : stack["frames"][0]["function"].get<std::string>();
  size_t colon = name.rfind("::");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

class HeapVerdict : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    path_ = dir_->file("heap.canopy");
    auto result = run({kCanopy, "record", "-q", "--heap=" + std::to_string(kHeapRateBytes), "--heap-interval", "100ms", "-o", path_, "--",
                       kHeapWorkload, "parent", kHeapWorkloadNoFramePointers});
    ASSERT_EQ(result.exit_status, 0) << result.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static nlohmann::json heap_json(std::vector<std::string> flags) {
    std::vector<std::string> argv = {kCanopy, "heap", "--json", "--top", "50", "--frames", "1"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back(path_);
    auto result = run(argv);
    EXPECT_EQ(result.exit_status, 0) << result.err;
    return nlohmann::json::parse(result.out);
  }

  static TempDir* dir_;
  static std::string path_;
};
TempDir* HeapVerdict::dir_ = nullptr;
std::string HeapVerdict::path_;

TEST_F(HeapVerdict, TheLeakSitesAreLeaksAndTheCacheAndThePeakAreNot) {
  auto json = heap_json({});
  std::map<std::string, nlohmann::json> at_end;   // by the stack's function
  std::map<std::string, nlohmann::json> at_peak;
  std::set<std::string> leaks;
  for (const auto& image : json["images"]) {
    for (const char* moment : {"at_peak", "at_end"}) {
      if (image[moment].is_null()) {
        continue;
      }
      // The high-water estimate is the most the same estimate reached, at any time.
      EXPECT_GE(image["high_water_bytes"].get<int64_t>(), image[moment]["in_use_bytes"].get<int64_t>());
      for (const auto& stack : image[moment]["stacks"]) {
        std::string name = short_name(stack);
        (std::string(moment) == "at_end" ? at_end : at_peak)[name] = stack;
        if (stack["verdict"]["kind"] == "leak") {
          leaks.insert(name);
        }
      }
    }
  }
  EXPECT_EQ(leaks, (std::set<std::string>{"leak_site_a", "leak_site_b", "leak_site_c"}));
  for (const auto& [site, truth] : kLeakTruth) {
    ASSERT_TRUE(at_end.contains(site)) << site;
    EXPECT_EQ(at_end[site]["verdict"]["reason"], "grew-and-kept") << at_end[site].dump();
    EXPECT_GE(at_end[site]["verdict"]["rises"].get<int64_t>(), 3) << site;
    EXPECT_EQ(at_end[site]["verdict"]["half_kept"], at_end[site]["verdict"]["half_sampled"]) << site;
    EXPECT_NEAR(at_end[site]["in_use_bytes"].get<double>(), truth, truth * kHeapTolerance) << site;
  }
  ASSERT_TRUE(at_end.contains("bounded_cache"));
  EXPECT_EQ(at_end["bounded_cache"]["verdict"]["kind"], "bounded");
  EXPECT_EQ(at_end["bounded_cache"]["verdict"]["reason"], "recycled");
  EXPECT_EQ(at_end["bounded_cache"]["verdict"]["half_kept"], 0);
  // Held across snapshots, so the parent's peak is its: 24 MiB given back by the end.
  ASSERT_TRUE(at_peak.contains("temporary_peak"));
  EXPECT_EQ(at_peak["temporary_peak"]["verdict"]["kind"], "bounded");
  EXPECT_EQ(at_peak["temporary_peak"]["verdict"]["reason"], "gave-back");
  EXPECT_EQ(at_peak["temporary_peak"]["verdict"]["held_bytes"], 0);
  EXPECT_FALSE(at_end.contains("temporary_peak"));
}

TEST_F(HeapVerdict, GrowthFromTheStartIsWhatEachLeakSiteHoldsAtTheEnd) {
  auto json = heap_json({"--from", "0s"});
  std::map<std::string, nlohmann::json> grew;
  for (const auto& image : json["growth"]) {
    double seconds = static_cast<double>(image["to_ms"].get<int64_t>() - image["from_ms"].get<int64_t>()) / 1000;
    for (const auto& stack : image["stacks"]) {
      grew[short_name(stack)] = stack;
      EXPECT_NEAR(stack["bytes_per_second"].get<double>() * seconds, stack["growth_bytes"].get<double>(), 1.0);
    }
  }
  for (const auto& [site, truth] : kLeakTruth) {
    ASSERT_TRUE(grew.contains(site)) << site;
    EXPECT_EQ(grew[site]["from_bytes"], 0) << site;
    EXPECT_NEAR(grew[site]["growth_bytes"].get<double>(), truth, truth * kHeapTolerance) << site;
  }
}

// The parent leaks its last block, then pauses 250 ms, holds its peak 250 ms and waits
// for the child's four 250 ms rounds: at its end, every block of sites A and B is
// older than 1.5 s.
TEST_F(HeapVerdict, OlderThanASecondAtTheParentsEndIsAllOfItsLeaks) {
  auto json = heap_json({"--older-than", "1s"});
  std::map<std::string, nlohmann::json> older;
  for (const auto& image : json["older_than"]) {
    for (const auto& stack : image["stacks"]) {
      older[short_name(stack)] = stack;
    }
  }
  for (const char* site : {"leak_site_a", "leak_site_b"}) {
    ASSERT_TRUE(older.contains(site)) << site;
    double truth = kLeakTruth.at(site);
    EXPECT_NEAR(older[site]["older_bytes"].get<double>(), truth, truth * kHeapTolerance) << site;
  }
  EXPECT_FALSE(older.contains("temporary_peak"));
}

// The summary's memory growth section takes its leaks from the heap profile.
TEST_F(HeapVerdict, TheSummaryNamesTheLeaksFromTheHeapProfile) {
  auto result = run({kCanopy, "report", "--json", path_});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto json = nlohmann::json::parse(result.out);
  std::set<std::string> where;  // "(anonymous namespace)::leak_site_a (heap_workload.cpp:42)" -> "leak_site_a"
  for (const auto& leak : json["heap_leaks"]["leaks"]) {
    std::string function = leak["where"].get<std::string>();
    function = function.substr(0, function.find(" ("));
    where.insert(function.substr(function.rfind("::") + 2));
  }
  EXPECT_EQ(where, (std::set<std::string>{"leak_site_a", "leak_site_b", "leak_site_c"})) << json["heap_leaks"].dump();
  auto text = run({kCanopy, "report", path_}).out;
  for (const auto& [site, truth] : kLeakTruth) {
    EXPECT_NE(text.find(site + " (heap_workload.cpp:"), std::string::npos) << site << " in\n" << text;
  }
}

TEST_F(HeapVerdict, ABadSpanIsRefusedInOneLine) {
  auto result = run({kCanopy, "heap", "--from", "2s", "--to", "1s", path_});
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_NE(result.err.find("--to 1.000 s is not after --from 2.000 s"), std::string::npos) << result.err;
  result = run({kCanopy, "heap", "--from", "1h", path_});
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_NE(result.err.find("--from 1 h 00 m 00 s is not before the end of '" + path_ + "', which lasts "),
            std::string::npos)
      << result.err;
  result = run({kCanopy, "heap", "--from", "1s", "--older-than", "1s", path_});
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_NE(result.err.find("--older-than looks at one moment"), std::string::npos) << result.err;
  result = run({kCanopy, "heap", "--command", "no_such_command", path_});
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_NE(result.err.find("no heap profile of command 'no_such_command'"), std::string::npos) << result.err;
}

// `heap_workload MODE` (one image) recorded at the tests' rate into `path`; its one
// image of canopy heap --json.
nlohmann::json one_image(const std::string& mode, const std::string& path) {
  auto recorded = run({kCanopy, "record", "-q", "--heap=" + std::to_string(kHeapRateBytes), "--heap-interval", "100ms",
                       "-o", path, "--", kHeapWorkload, mode});
  EXPECT_EQ(recorded.exit_status, 0) << recorded.err;
  auto heap = run({kCanopy, "heap", "--json", "--top", "50", "--frames", "1", path});
  EXPECT_EQ(heap.exit_status, 0) << heap.err;
  auto json = nlohmann::json::parse(heap.out, nullptr, false);
  EXPECT_TRUE(json.is_object() && json["images"].size() == 1) << heap.out;
  return json.is_object() && json["images"].size() == 1 ? json["images"][0] : nlohmann::json();
}

// The stacks of `function` (a short name) at a moment of the image ("at_peak", "at_end").
std::vector<nlohmann::json> stacks_of(const nlohmann::json& image, const char* moment, const std::string& function) {
  std::vector<nlohmann::json> found;
  if (image.is_null() || image[moment].is_null()) {
    return found;
  }
  for (const auto& stack : image[moment]["stacks"]) {
    if (short_name(stack) == function) {
      found.push_back(stack);
    }
  }
  return found;
}

// Site D's stack at a moment of the image, if it is listed there.
std::optional<nlohmann::json> site_d_stack(const nlohmann::json& image, const char* moment) {
  auto found = stacks_of(image, moment, "leak_until_exit");
  return found.empty() ? std::nullopt : std::optional(found.front());
}

const double kSiteDTruth = static_cast<double>(kSiteD.block_bytes * kSiteD.blocks);

// Site D grows in four rounds and is kept to the end of main; a static destructor frees
// it after, before the profiler's exit snapshot. Each round has 520 blocks with p = 0.387
// each: a round with no sample has probability 0.613^520 < 1e-100, so the snapshots see
// four rises, and the estimate is within 25% but with probability below 3e-10
// (heap_sites.h).
TEST(HeapReport, WhatTheTeardownFreesIsJudgedAsTheProcessRan) {
  TempDir dir;
  std::string path = dir.file("teardown.canopy");
  nlohmann::json image = one_image("teardown", path);
  ASSERT_FALSE(image.is_null());
  ASSERT_EQ(image["end"], "exit");
  auto at_peak = site_d_stack(image, "at_peak");
  ASSERT_TRUE(at_peak) << image["at_peak"].dump();
  EXPECT_EQ((*at_peak)["verdict"]["kind"], "leak") << at_peak->dump();
  EXPECT_EQ((*at_peak)["verdict"]["freed_at_exit"], true);
  EXPECT_NEAR((*at_peak)["verdict"]["held_bytes"].get<double>(), kSiteDTruth, kSiteDTruth * kHeapTolerance);
  EXPECT_FALSE(site_d_stack(image, "at_end")) << "the exit freed it";

  auto report = run({kCanopy, "report", path});
  EXPECT_NE(report.out.find("leak_until_exit (heap_workload.cpp:"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("until its exit"), std::string::npos) << report.out;
}

// The same growth as above, but the program leaves by _exit, as Python's os._exit (and
// so every multiprocessing worker) leaves: no destructor runs, and the profiler's _exit
// sends the exit snapshot, with site D whole. A vfork child's _exit before it, in the
// parent's memory, must not end the parent's profile. The bounds are the test above's.
TEST(HeapReport, AProgramThatLeavesByUnderscoreExitHasItsExitSnapshot) {
  TempDir dir;
  nlohmann::json image = one_image("underscore-exit", dir.file("underscore_exit.canopy"));
  ASSERT_FALSE(image.is_null());
  EXPECT_EQ(image["end"], "exit");
  auto at_end = site_d_stack(image, "at_end");
  ASSERT_TRUE(at_end) << image["at_end"].dump();
  EXPECT_NEAR((*at_end)["in_use_bytes"].get<double>(), kSiteDTruth, kSiteDTruth * kHeapTolerance);
  EXPECT_EQ((*at_end)["verdict"]["kind"], "leak") << at_end->dump();
  EXPECT_EQ((*at_end)["verdict"]["freed_at_exit"], false);
}

// Site E leaks in four rounds, as site D does, through four calls to malloc on one line,
// as a compiler that unrolled a loop of one call leaves them (clang often does): four
// recorded stacks that read alike, frame for frame. They are one stack, which holds the
// whole site and is a leak; each stack alone grew but once a round. Each round has 328
// blocks with p = 0.624 each: a round with no sample has probability 0.376^328 < 1e-130;
// the estimate's bound is heap_sites.h's.
TEST(HeapReport, CallsOnOneLineOfSourceAreOneStack) {
  TempDir dir;
  nlohmann::json image = one_image("unrolled", dir.file("unrolled.canopy"));
  ASSERT_FALSE(image.is_null());
  std::vector<nlohmann::json> stacks = stacks_of(image, "at_end", "leak_site_unrolled");
  ASSERT_EQ(stacks.size(), 1u) << image["at_end"].dump();
  const double truth = static_cast<double>(kSiteE.block_bytes * kSiteE.blocks);
  EXPECT_NEAR(stacks[0]["in_use_bytes"].get<double>(), truth, truth * kHeapTolerance);
  EXPECT_EQ(stacks[0]["verdict"]["kind"], "leak") << stacks[0].dump();
}

// A short process whose heap is a few large blocks: four of 16 MiB at each of two sites,
// allocated at once and kept to its exit. Sampled at 512 KiB, a block goes unsampled with
// probability e^-32 < 2e-14, so all eight are sampled but with probability below 2e-13:
// four sampled allocations at each site, one fewer than a verdict needs, and eight in
// all, enough for a verdict had they been one stack. A "no leak" from them would say
// nothing; the summary says they were not judged, and where most of the heap was.
constexpr int64_t kFewLargeBytes = 16 * 1024 * 1024;  // as in heap_workload.cpp
constexpr int64_t kFewLargeBlocks = 4;

TEST(HeapReport, AShortProcessWhoseHeapIsAFewLargeBlocksIsNotJudged) {
  TempDir dir;
  std::string path = dir.file("few_large.canopy");
  auto recorded = run({kCanopy, "record", "--heap=512K", "-o", path, "--", kHeapWorkload, "few-large"});
  ASSERT_EQ(recorded.exit_status, 0) << recorded.err;
  auto report = run({kCanopy, "report", path});
  for (const std::string& text : {recorded.err, report.out}) {
    EXPECT_NE(text.find("  memory growth      not judged: the heap profile's 1 process image held most of its heap "
                        "in stacks too thinly sampled or seen at too few snapshots (--heap=64K samples more):\n"
                        "    canopy_heap_wor  pid "),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("      64.0 MiB  (anonymous namespace)::few_large_site_"), std::string::npos) << text;
    EXPECT_NE(text.find("unclear: too few sampled allocations to judge (4, needs 5)\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("no leak"), std::string::npos) << text;
  }

  auto json = run({kCanopy, "report", "--json", path});
  ASSERT_EQ(json.exit_status, 0) << json.err;
  auto leaks = nlohmann::json::parse(json.out)["heap_leaks"];
  EXPECT_EQ(leaks["images"], 1) << leaks.dump();
  EXPECT_EQ(leaks["images_judged"], 0) << leaks.dump();
  ASSERT_EQ(leaks["unjudged"].size(), 1u) << leaks.dump();
  const auto& verdict = leaks["unjudged"][0]["verdict"];
  EXPECT_EQ(verdict["kind"], "unclear");
  EXPECT_EQ(verdict["reason"], "too-few-samples");
  EXPECT_EQ(verdict["held_sampled"], kFewLargeBlocks);
  // Each block sampled with p = 1 - e^-32 counts its own size: exact to the byte.
  EXPECT_EQ(verdict["held_bytes"], kFewLargeBlocks * kFewLargeBytes);
}

TEST(HeapReport, ARecordingWithoutAHeapProfileIsRefusedInOneLine) {
  TempDir dir;
  std::string path = dir.file("plain.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", path, "--", "true"}).exit_status, 0);
  auto result = run({kCanopy, "heap", path});
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_EQ(result.err, "canopy: '" + path + "' has no heap profile: record with --heap (canopy record --heap -- COMMAND)\n");
}

}  // namespace
}  // namespace canopy::testing
