// canopy heap's text (report/heap_format.h): the images that sampled come largest
// first, as many as asked for, and those that sampled nothing share one entry, named
// by command, so that a tree of thousands of short processes does not bury the one
// that held the heap; and each image says which process of its name it is, and how far
// its profile goes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/heap_format.h"
#include "report/heap_growth_format.h"

namespace canopy::report {
namespace {

analyze::HeapImageSummary heap_image(int64_t pid, const std::string& name, int64_t samples, int64_t in_use_bytes) {
  analyze::HeapImageSummary summary;
  summary.image.pid = pid;
  summary.image.rate_bytes = 512 * 1024;
  summary.image.end = "exit";
  summary.image.samples = samples;
  store::ProcessRow process;
  process.pid = pid;
  process.name = name;
  summary.process = process;
  analyze::HeapMoment end;
  end.t_ms = 1000 + pid;
  end.in_use_bytes = in_use_bytes;
  summary.end = end;
  summary.snapshots = 1;
  return summary;
}

const StackFrames kNoFrames = [](int64_t) { return std::vector<FrameText>(); };

// Where each image's title line starts in `text`, in the order of `pids`.
std::vector<size_t> title_positions(const std::string& text, const std::vector<int64_t>& pids) {
  std::vector<size_t> positions;
  for (int64_t pid : pids) {
    positions.push_back(text.find("(pid " + std::to_string(pid) + "): "));
  }
  return positions;
}

// That each of `pids` has its title in `text`, in that order.
void expect_titles_in_order(const std::string& text, const std::vector<int64_t>& pids) {
  const std::vector<size_t> at = title_positions(text, pids);
  for (size_t i = 0; i < at.size(); ++i) {
    ASSERT_NE(at[i], std::string::npos) << "pid " << pids[i] << " in\n" << text;
    if (i > 0) {
      EXPECT_LT(at[i - 1], at[i]) << text;
    }
  }
}

TEST(HeapTextOrder, TheLargestHighWaterMarkComesFirst) {
  std::vector<analyze::HeapImageSummary> images = {
      heap_image(1, "make", 3, 2 * 1024 * 1024),
      heap_image(2, "cc1plus", 400, 300 * 1024 * 1024),
      heap_image(3, "ld", 90, 60 * 1024 * 1024),
  };
  // ld's high-water mark was above its end, and above cc1plus's end too.
  analyze::HeapMoment peak;
  peak.t_ms = 900;
  peak.in_use_bytes = 500 * 1024 * 1024;
  images[2].peak = peak;
  std::string text = heap_text(images, 0, kNoFrames, {});
  expect_titles_in_order(text, {3, 2, 1});
  EXPECT_EQ(text.find("no samples"), std::string::npos) << text;
  // The JSON keeps the order it was given: the images' start.
  auto json = nlohmann::json::parse(heap_json(images, 0, kNoFrames, {}));
  ASSERT_EQ(json["images"].size(), 3u);
  EXPECT_EQ(json["images"][0]["pid"], 1);
  EXPECT_EQ(json["images"][2]["pid"], 3);
}

// Python frees its heap in its finalization, before the exit snapshot, and the last
// peak snapshot was below its top (the next is sent only a quarter higher): the top
// comes from the profiler's high-water estimate, and orders the images.
TEST(HeapTextOrder, AHighWaterMarkBetweenSnapshotsIsSaidAndOrders) {
  constexpr int64_t kMiB = 1024 * 1024;
  std::vector<analyze::HeapImageSummary> images = {heap_image(1, "cc1", 40, 70 * kMiB),
                                                   heap_image(2, "python3", 130, kMiB / 2)};
  analyze::HeapMoment peak;
  peak.t_ms = 3424;
  peak.in_use_bytes = 68 * kMiB;
  images[1].peak = peak;
  images[1].high_water_bytes = 82 * kMiB;
  images[0].high_water_bytes = 72 * kMiB;  // within 5% of its end: the same figure to a reader
  std::string text = heap_text(images, 0, kNoFrames, {});
  expect_titles_in_order(text, {2, 1});
  EXPECT_NE(text.find("python3 (pid 2): one sample per 512.0 KiB allocated, 130 samples, to its exit\n"
                      "  its heap reached about 82.0 MiB between snapshots (the profiler's high-water estimate): more "
                      "than any snapshot below holds\n  at its highest snapshot: 68.0 MiB heap in use at +3.424 s\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("reached about 72.0 MiB"), std::string::npos) << text;
  auto json = nlohmann::json::parse(heap_json(images, 0, kNoFrames, {}));
  EXPECT_EQ(json["images"][1]["high_water_bytes"], 82 * kMiB);
}

// `canopy heap --older-than` of a build: the one image that holds old memory leads,
// and the shells that hold none are one line, not one entry each.
TEST(HeapTextOrder, OnlyImagesHoldingOldMemoryAreListedTheMostFirst) {
  std::vector<store::HeapImageRow> rows(4);
  std::vector<analyze::HeapImageAged> images;
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].pid = static_cast<int64_t>(10 + i);
    analyze::HeapImageAged image;
    image.image = &rows[i];
    image.t_ms = 2000;
    images.push_back(image);
  }
  for (auto [index, bytes] : {std::pair{1, 300.0 * 1024}, std::pair{3, 5.0 * 1024 * 1024}}) {
    analyze::HeapStackAged stack;
    stack.stack_id = index;
    stack.older.bytes = bytes;
    stack.older.count = 1;
    stack.oldest_born_ms = 100;
    images[static_cast<size_t>(index)].top.push_back(stack);
    images[static_cast<size_t>(index)].older_bytes = bytes;
  }
  std::string text = heap_aged_text(images, 1000, 0, kNoFrames, 10);
  expect_titles_in_order(text, {13, 11});
  EXPECT_NE(text.find("(pid 13): 5.0 MiB held at +2.000 s by allocations older than 1.000 s\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("(pid 11): 300.0 KiB held"), std::string::npos) << text;
  EXPECT_EQ(text.find("(pid 10)"), std::string::npos) << text;
  EXPECT_NE(text.find("\n2 more process images held no allocation older than 1.000 s (--json lists every one)\n"),
            std::string::npos)
      << text;
  auto json = nlohmann::json::parse(heap_aged_json(images, 1000, 0, kNoFrames));
  ASSERT_EQ(json["older_than"].size(), images.size()) << "the JSON has every image, in order";
  EXPECT_EQ(json["older_than"][0]["pid"], 10);
}

// `canopy heap --from --to` of a build: the compiler whose stacks grew most leads,
// whatever its whole heap did, and the images where nothing grew are one line.
TEST(HeapTextOrder, OnlyImagesWhereAStackGrewAreListedTheMostFirst) {
  constexpr int64_t kMiB = 1024 * 1024;
  std::vector<store::HeapImageRow> rows(4);
  std::vector<analyze::HeapImageGrowth> images;
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].pid = static_cast<int64_t>(20 + i);
    analyze::HeapImageGrowth image;
    image.image = &rows[i];
    image.to_ms = 1000;
    images.push_back(image);
  }
  images[1].top.push_back({.stack_id = 1, .from_bytes = 0, .to_bytes = 2 * kMiB});
  images[1].to_in_use_bytes = 2 * kMiB;
  // Its whole heap shrank, but one stack grew more than any of pid 21's.
  images[2].top.push_back({.stack_id = 2, .from_bytes = kMiB, .to_bytes = 4 * kMiB});
  images[2].from_in_use_bytes = 10 * kMiB;
  images[2].to_in_use_bytes = 8 * kMiB;
  std::string text = heap_growth_text(images, 0, kNoFrames, 10);
  expect_titles_in_order(text, {22, 21});
  EXPECT_NE(text.find("(pid 22): heap 10.0 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("(pid 21): heap 0 B"), std::string::npos) << text;
  EXPECT_EQ(text.find("(pid 20)"), std::string::npos) << text;
  EXPECT_NE(text.find("\n2 more process images in that span where no stack grew (--json lists every one)\n"),
            std::string::npos)
      << text;
  // --processes 1: the one that gained most, and a line for the other.
  std::string first = heap_growth_text(images, 0, kNoFrames, 1);
  EXPECT_EQ(first.find("(pid 21)"), std::string::npos) << first;
  EXPECT_NE(first.find("\n1 more process image where a stack grew, each gaining at most 2.0 MiB: --processes 2 lists "
                       "every one, --pid or --command one\n"),
            std::string::npos)
      << first;
  auto json = nlohmann::json::parse(heap_growth_json(images, 0, kNoFrames));
  ASSERT_EQ(json["growth"].size(), images.size()) << "the JSON has every image, in order";
  EXPECT_EQ(json["growth"][0]["pid"], 20);
}

TEST(HeapTextOrder, ImagesThatSampledNothingShareOneEntryByCommand) {
  std::vector<analyze::HeapImageSummary> images;
  for (int64_t pid = 10; pid < 15; ++pid) {
    images.push_back(heap_image(pid, "sh", 0, 0));
  }
  images.push_back(heap_image(20, "python3", 41, 60 * 1024 * 1024));
  images.push_back(heap_image(21, "sed", 0, 0));
  images.push_back(heap_image(22, "readlink", 0, 0));
  images.push_back(heap_image(23, "readlink", 0, 0));
  std::string text = heap_text(images, 0, kNoFrames, {});
  EXPECT_EQ(text.find("python3 (pid 20): "), 0u) << text;
  EXPECT_NE(text.find("no samples: 8 process images, each of which allocated less than about 512.0 KiB (or had "
                      "sampling off)\n  sh 5, readlink 2, sed 1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("(pid 10)"), std::string::npos) << text;
  auto json = nlohmann::json::parse(heap_json(images, 0, kNoFrames, {}));
  EXPECT_EQ(json["images"].size(), images.size());
}

// A build's hundreds of compilers: the text lists the few that held the most and says
// how many more there are and what they held at most.
TEST(HeapTextOrder, ImagesBeyondTheProcessesAskedForAreOneLine) {
  std::vector<analyze::HeapImageSummary> images = {
      heap_image(1, "cc1", 40, 30 * 1024 * 1024), heap_image(2, "cc1", 40, 50 * 1024 * 1024),
      heap_image(3, "cc1", 40, 20 * 1024 * 1024), heap_image(4, "cc1", 40, 25 * 1024 * 1024),
      heap_image(5, "sh", 0, 0)};
  std::string text = heap_text(images, 0, kNoFrames, {}, 2);
  auto at = title_positions(text, {2, 1, 4, 3});
  ASSERT_NE(at[0], std::string::npos) << text;
  ASSERT_NE(at[1], std::string::npos) << text;
  EXPECT_EQ(at[2], std::string::npos) << text;
  EXPECT_EQ(at[3], std::string::npos) << text;
  EXPECT_NE(text.find("\n2 more process images with samples, each with a heap of at most 25.0 MiB: --processes 4 "
                      "lists every one, --pid or --command one\n\nno samples: 1 process image"),
            std::string::npos)
      << text;
  EXPECT_EQ(heap_text(images, 0, kNoFrames, {}, 4).find("more process image"), std::string::npos);
  auto json = nlohmann::json::parse(heap_json(images, 0, kNoFrames, {}));
  EXPECT_EQ(json["images"].size(), images.size()) << "the JSON has every image";
}

TEST(HeapTextOrder, AFewImagesThatSampledNothingAreNamedOneByOne) {
  std::vector<analyze::HeapImageSummary> images = {heap_image(30, "sh", 0, 0), heap_image(31, "true", 0, 0)};
  images[1].image.rate_bytes = 4096;
  EXPECT_EQ(heap_text(images, 0, kNoFrames, {}),
            "no samples: 2 process images, each of which allocated less than about their sampling rate (or had "
            "sampling off)\n  sh (pid 30), true (pid 31)\n\n");
}

// Two compilers of one build are told apart by their source files, in the text, and
// the JSON has each one's command line.
TEST(HeapTextOrder, AnImageIsTitledByItsNameAndWhatTellsItApart) {
  std::vector<analyze::HeapImageSummary> images = {heap_image(2, "cc1plus", 400, 300 * 1024 * 1024)};
  images[0].process->cmdline = {"/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "-quiet", "/w/src/json.cpp", "-o", "x.s"};
  EXPECT_NE(heap_text(images, 0, kNoFrames, {}).find("cc1plus src/json.cpp (pid 2): "), std::string::npos)
      << heap_text(images, 0, kNoFrames, {});
  auto json = nlohmann::json::parse(heap_json(images, 0, kNoFrames, {}));
  EXPECT_EQ(json["images"][0]["cmdline"][2], "/w/src/json.cpp");
}

// An image that had not ended when the recorder was killed: its profile goes as far as
// its last snapshot, not to an end the recording never had.
TEST(HeapTextOrder, AnImageOfARecordingThatDidNotEndGoesToItsLastSnapshot) {
  std::vector<analyze::HeapImageSummary> images = {heap_image(8841, "python3", 76, 20 * 1024 * 1024)};
  images[0].image.end = std::nullopt;
  analyze::HeapCoverageSummary unfinished;
  unfinished.state = analyze::HeapCoverageSummary::State::kUnfinished;
  std::string text = heap_text(images, 0, kNoFrames, unfinished);
  EXPECT_NE(text.find("76 samples, until its last snapshot (the recording did not end)\n"), std::string::npos) << text;
  analyze::HeapCoverageSummary finished;
  finished.state = analyze::HeapCoverageSummary::State::kRecorded;
  text = heap_text(images, 0, kNoFrames, finished);
  EXPECT_NE(text.find("76 samples, until the recording ended\n"), std::string::npos) << text;
}

// Two targets of a unity build each compile a "Unity/unity_0_cxx.cxx": their compilers'
// titles show the target's directory, in the image list as in the summary's peaks.
TEST(HeapTextOrder, CompilesOfAUnityBuildAreToldApartByTheirTarget) {
  std::vector<analyze::HeapImageSummary> images = {
      heap_image(1, "cc1plus", 40, 30 * 1024 * 1024),
      heap_image(2, "cc1plus", 30, 20 * 1024 * 1024),
  };
  images[0].process->cmdline = {"cc1plus", "-quiet", "/b/CMakeFiles/canopy_store.dir/Unity/unity_0_cxx.cxx"};
  images[1].process->cmdline = {"cc1plus", "-quiet", "/b/CMakeFiles/canopy_web.dir/Unity/unity_0_cxx.cxx"};
  const std::string text = heap_text(images, 1000, kNoFrames, analyze::HeapCoverageSummary{});
  EXPECT_NE(text.find("cc1plus canopy_store.dir/Unity/unity_0_cxx.cxx (pid 1): "), std::string::npos) << text;
  EXPECT_NE(text.find("cc1plus canopy_web.dir/Unity/unity_0_cxx.cxx (pid 2): "), std::string::npos) << text;
}

}  // namespace
}  // namespace canopy::report
