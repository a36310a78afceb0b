// canopy export --format pprof and --format collapsed of a real heap recording: the
// heap workload (heap_sites.h) recorded with --heap once per suite, each export read by
// readers that are not canopy's (gzip, and protoc against pprof's published schema;
// the folded lines as flamegraph.pl splits them), and each leak site's estimate held
// against what the workload allocated.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "integration/harness.h"
#include "integration/heap_sites.h"
#include "integration/pprof_decoded.h"

namespace canopy::testing {
namespace {

struct Folded {
  std::vector<std::string> frames;  // outermost first
  int64_t value = 0;
};

// flamegraph.pl's reading of a line: the frames, a space, the figure at the end.
std::vector<Folded> parse_folded(const std::string& text) {
  std::vector<Folded> lines;
  std::istringstream in(text);
  std::string line;
  std::regex folded(R"(^(.+) (\d+)$)");
  while (std::getline(in, line)) {
    std::smatch match;
    if (!std::regex_match(line, match, folded)) {
      ADD_FAILURE() << "not a folded line: '" << line << "'";
      continue;
    }
    Folded parsed{{}, std::stoll(match[2])};
    std::string frames = match[1];
    for (size_t from = 0;;) {
      size_t to = frames.find(';', from);
      parsed.frames.push_back(frames.substr(from, to - from));
      if (to == std::string::npos) {
        break;
      }
      from = to + 1;
    }
    lines.push_back(std::move(parsed));
  }
  return lines;
}

// The GNU build-id of an ELF file as readelf reads its notes.
std::string readelf_build_id(const std::string& path) {
  auto notes = run({"readelf", "-n", path});
  std::smatch match;
  return std::regex_search(notes.out, match, std::regex("Build ID: ([0-9a-f]+)")) ? match[1].str() : "";
}

class HeapExport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    recording_ = dir_->file("heap.canopy");
    auto recorded = run({kCanopy, "record", "-q", "--heap=" + std::to_string(kHeapRateBytes), "-o", recording_, "--",
                         kHeapWorkload, "parent", kHeapWorkloadNoFramePointers});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.err;
    auto reader = open_recording(recording_);
    auto profile = reader.heap_profile();
    auto processes = reader.processes();
    ASSERT_TRUE(profile.ok() && processes.ok());
    for (const store::ProcessRow& process : *processes) {
      (process.exe == std::filesystem::canonical(kHeapWorkload) ? parent_pid_ : child_pid_) = process.pid;
    }
  }
  static void TearDownTestSuite() { delete dir_; }

  // `canopy export` of the recording in `format` with `args`, to a file of its own;
  // its path, or "" when canopy failed.
  static std::string export_to_file(const std::string& format, const std::vector<std::string>& args) {
    std::string path = dir_->file("export-" + std::to_string(exports_++) + (format == "pprof" ? ".pb.gz" : ".folded"));
    std::vector<std::string> argv = {kCanopy, "export", recording_, "--format", format, "-o", path};
    argv.insert(argv.end(), args.begin(), args.end());
    auto result = run(argv);
    EXPECT_EQ(result.exit_status, 0) << result.err;
    EXPECT_EQ(result.err, "");
    return result.exit_status == 0 ? path : "";
  }

  static PprofProfile pprof(const std::vector<std::string>& args = {}) {
    std::string path = export_to_file("pprof", args);
    std::string error;
    PprofProfile profile = path.empty() ? PprofProfile{} : decode_pprof(path, error);
    EXPECT_EQ(error, "");
    return profile;
  }

  static std::vector<Folded> collapsed(const std::vector<std::string>& args = {}) {
    std::string path = export_to_file("collapsed", args);
    std::ifstream file(path);
    return parse_folded(std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()));
  }

  // The sum of a sample type over the samples whose innermost function is `function`.
  static int64_t leaf_total(const PprofProfile& profile, const std::string& function, const std::string& type) {
    int64_t total = 0;
    for (const PprofSample& sample : profile.samples) {
      total += profile.leaf_function(sample) == function ? profile.value(sample, type) : 0;
    }
    return total;
  }

  // The sum of the lines whose innermost frame is `function`.
  static int64_t leaf_total(const std::vector<Folded>& lines, const std::string& function) {
    int64_t total = 0;
    for (const Folded& line : lines) {
      total += line.frames.back() == function ? line.value : 0;
    }
    return total;
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string recording_;
  static inline int64_t parent_pid_ = 0;
  static inline int64_t child_pid_ = 0;
  static inline int exports_ = 0;
};

TEST_F(HeapExport, PprofHoldsEveryLeakSiteWithinAQuarter) {
  PprofProfile profile = pprof();
  using Types = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(profile.sample_types, (Types{{"alloc_objects", "count"},
                                         {"alloc_space", "bytes"},
                                         {"inuse_objects", "count"},
                                         {"inuse_space", "bytes"}}));
  EXPECT_EQ(profile.default_sample_type, "inuse_space");
  EXPECT_EQ(profile.period_type, (std::pair<std::string, std::string>{"space", "bytes"}));
  EXPECT_EQ(profile.period, kHeapRateBytes);
  auto reader = open_recording(recording_);
  ASSERT_TRUE(reader.meta().start_ms && reader.meta().end_ms);
  EXPECT_EQ(profile.time_nanos, *reader.meta().start_ms * 1'000'000);
  EXPECT_EQ(profile.duration_nanos, (*reader.meta().end_ms - *reader.meta().start_ms) * 1'000'000);
  bool rate_said = false;
  for (const std::string& comment : profile.comments) {
    rate_said |= comment.find("one allocation per 4096 bytes allocated on average") != std::string::npos;
  }
  EXPECT_TRUE(rate_said) << "no comment says the profile is an estimate from sampling at its rate";

  for (const HeapSite& site : kSites) {
    SCOPED_TRACE(site.function);
    double bytes = static_cast<double>(site.block_bytes * site.blocks);
    int64_t in_use = leaf_total(profile, site.function, "inuse_space");
    EXPECT_NEAR(in_use, bytes, bytes * kHeapTolerance);
    EXPECT_NEAR(leaf_total(profile, site.function, "inuse_objects"), site.blocks, site.blocks * kHeapTolerance);
    // Leaked, every block: what was allocated is what is held.
    EXPECT_EQ(leaf_total(profile, site.function, "alloc_space"), in_use);
    for (const PprofSample& sample : profile.samples) {
      if (profile.leaf_function(sample) == site.function) {
        int64_t pid = &site == &kSites[2] ? child_pid_ : parent_pid_;
        EXPECT_EQ(sample.labels.at("pid"), std::to_string(pid));
        EXPECT_EQ(sample.labels.at("command"), "canopy_heap_wor");  // the kernel's 15 bytes of the name
      }
    }
  }
  // Allocated, then all given back before the end.
  double peak_bytes = static_cast<double>(kTemporaryPeak.block_bytes * kTemporaryPeak.blocks);
  EXPECT_NEAR(leaf_total(profile, kTemporaryPeak.function, "alloc_space"), peak_bytes, peak_bytes * kHeapTolerance);
  EXPECT_EQ(leaf_total(profile, kTemporaryPeak.function, "inuse_space"), 0);
}

TEST_F(HeapExport, PprofMappingsCarryBuildIdsInRangesOfTheirOwn) {
  PprofProfile profile = pprof();
  ASSERT_FALSE(profile.mappings.empty());
  EXPECT_EQ(profile.mappings[0].filename, std::filesystem::canonical(kHeapWorkload))
      << "pprof takes the first mapping for the program";
  for (const std::string& program : {std::filesystem::canonical(kHeapWorkload).string(),
                                    std::filesystem::canonical(kHeapWorkloadNoFramePointers).string()}) {
    auto mapping = std::find_if(profile.mappings.begin(), profile.mappings.end(),
                                [&](const PprofMapping& m) { return m.filename == program; });
    ASSERT_NE(mapping, profile.mappings.end()) << program;
    std::string build_id = readelf_build_id(program);
    EXPECT_FALSE(build_id.empty()) << program;
    EXPECT_EQ(mapping->build_id, build_id) << program;
    EXPECT_TRUE(mapping->has_functions && mapping->has_inline_frames) << program;
  }
  std::vector<PprofMapping> by_start = profile.mappings;
  std::sort(by_start.begin(), by_start.end(),
            [](const PprofMapping& a, const PprofMapping& b) { return a.memory_start < b.memory_start; });
  for (size_t i = 0; i < by_start.size(); ++i) {
    const PprofMapping& mapping = by_start[i];
    EXPECT_TRUE(std::regex_match(mapping.build_id, std::regex("[0-9a-f]{8,}"))) << mapping.filename;
    EXPECT_LT(mapping.memory_start, mapping.memory_limit) << mapping.filename;
    EXPECT_EQ(mapping.file_offset, 0u) << mapping.filename;
    if (i + 1 < by_start.size()) {
      EXPECT_LE(mapping.memory_limit, by_start[i + 1].memory_start) << mapping.filename << " overlaps the next";
    }
  }
  std::map<uint64_t, const PprofMapping*> by_id;
  for (const PprofMapping& mapping : profile.mappings) {
    by_id[mapping.id] = &mapping;
  }
  for (const auto& [id, location] : profile.locations) {
    ASSERT_TRUE(by_id.count(location.mapping_id)) << "location " << id << " of no mapping";
    const PprofMapping& mapping = *by_id[location.mapping_id];
    EXPECT_GE(location.address, mapping.memory_start) << "location " << id;
    EXPECT_LT(location.address, mapping.memory_limit) << "location " << id;
  }
  for (const PprofSample& sample : profile.samples) {
    for (uint64_t id : sample.location_ids) {
      EXPECT_TRUE(profile.locations.count(id)) << "a sample names location " << id << ", which is not there";
    }
  }
  // The workload's run_parent is inlined into main (as `canopy heap` shows it): one
  // location, the inlined function's line first, then the one it was inlined into.
  bool run_parent_inlined = false;
  for (const auto& [id, location] : profile.locations) {
    for (size_t i = 0; i + 1 < location.lines.size(); ++i) {
      run_parent_inlined |= location.lines[i].function == "(anonymous namespace)::run_parent" &&
                            location.lines[i + 1].function == "main" && location.lines[i].line > 0;
    }
  }
  EXPECT_TRUE(run_parent_inlined) << "no location has run_parent inlined into main";
}

// pprof itself opens the export and reads what protoc read: each site's own figure in
// every sample type, and every stack (the child's, built without frame pointers,
// included) reaching main. pprof writes "(anonymous namespace)" as "".
TEST_F(HeapExport, PprofItselfReadsWhatTheSchemaReads) {
  std::string path = export_to_file("pprof", {});
  std::string error;
  PprofProfile decoded = decode_pprof(path, error);
  ASSERT_EQ(error, "");
  for (const auto& [type, unit] : decoded.sample_types) {
    SCOPED_TRACE(type);
    std::vector<PprofTopRow> rows = pprof_tool_top(path, type, error);
    ASSERT_EQ(error, "");
    auto row_of = [&](const std::string& function) -> const PprofTopRow* {
      std::string shown = std::regex_replace(function, std::regex(R"(\(anonymous namespace\))"), "");
      auto row = std::find_if(rows.begin(), rows.end(), [&](const PprofTopRow& r) { return r.function == shown; });
      return row == rows.end() ? nullptr : &*row;
    };
    for (const HeapSite& site : {kSiteA, kSiteB, kSiteC, kTemporaryPeak}) {
      int64_t expected = leaf_total(decoded, site.function, type);
      const PprofTopRow* row = row_of(site.function);
      if (expected == 0 && !row) {
        continue;  // pprof leaves out a function with nothing in this type
      }
      ASSERT_NE(row, nullptr) << site.function;
      EXPECT_EQ(row->flat, expected) << site.function;
    }
    int64_t total = 0;
    for (const PprofSample& sample : decoded.samples) {
      total += decoded.value(sample, type);
    }
    const PprofTopRow* main_row = row_of("main");
    ASSERT_NE(main_row, nullptr);
    EXPECT_EQ(main_row->cum, total);
  }
}

TEST_F(HeapExport, AtEndAndAtPeakHoldEachImagesSnapshot) {
  auto reader = open_recording(recording_);
  auto heap = reader.heap_profile();
  ASSERT_TRUE(heap.ok()) << heap.error().message;
  for (const char* at : {"end", "peak"}) {
    SCOPED_TRACE(at);
    PprofProfile profile = pprof({"--at", at});
    std::vector<Folded> lines = collapsed({"--at", at});
    std::map<std::string, int64_t> in_use_by_pid;
    std::map<std::string, int64_t> samples_by_pid;
    int64_t in_use = 0;
    for (const PprofSample& sample : profile.samples) {
      in_use_by_pid[sample.labels.at("pid")] += profile.value(sample, "inuse_space");
      ++samples_by_pid[sample.labels.at("pid")];
      in_use += profile.value(sample, "inuse_space");
    }
    int64_t folded = 0;
    for (const Folded& line : lines) {
      folded += line.value;
    }
    EXPECT_EQ(folded, in_use) << "collapsed and pprof hold the same heap";
    for (const store::HeapImageRow& image : heap->images) {
      const store::HeapSnapshotRow* chosen = nullptr;
      for (const store::HeapSnapshotRow& snapshot : heap->snapshots) {
        if (snapshot.image_id == image.id &&
            (!chosen || (std::string(at) == "end" ? snapshot.t_ms >= chosen->t_ms
                                                  : snapshot.in_use_bytes > chosen->in_use_bytes))) {
          chosen = &snapshot;
        }
      }
      ASSERT_NE(chosen, nullptr);
      // Each stack's figures were rounded to whole bytes on their own: 2 bytes each at most.
      std::string pid = std::to_string(image.pid);
      EXPECT_NEAR(in_use_by_pid[pid], chosen->in_use_bytes, 2 * samples_by_pid[pid] + 2) << "pid " << pid;
    }
  }
}

TEST_F(HeapExport, CollapsedStacksHoldEveryLeakSiteWithinAQuarter) {
  std::vector<Folded> lines = collapsed();
  ASSERT_FALSE(lines.empty());
  for (const Folded& line : lines) {
    for (const std::string& frame : line.frames) {
      EXPECT_FALSE(frame.empty());
    }
    EXPECT_GT(line.value, 0);
  }
  for (const HeapSite& site : kSites) {
    SCOPED_TRACE(site.function);
    double bytes = static_cast<double>(site.block_bytes * site.blocks);
    EXPECT_NEAR(leaf_total(lines, site.function), bytes, bytes * kHeapTolerance);
    for (const Folded& line : lines) {
      if (line.frames.back() == site.function) {
        auto main = std::find(line.frames.begin(), line.frames.end(), "main");
        EXPECT_NE(main, line.frames.end()) << "outermost first: main before the leak site";
      }
    }
  }
  EXPECT_EQ(leaf_total(lines, kTemporaryPeak.function), 0) << "given back before the end";
  std::vector<Folded> objects = collapsed({"--metric", "inuse_objects"});
  EXPECT_NEAR(leaf_total(objects, kSiteA.function), kSiteA.blocks, kSiteA.blocks * kHeapTolerance);
  std::vector<Folded> allocated = collapsed({"--metric", "alloc_space"});
  double peak_bytes = static_cast<double>(kTemporaryPeak.block_bytes * kTemporaryPeak.blocks);
  EXPECT_NEAR(leaf_total(allocated, kTemporaryPeak.function), peak_bytes, peak_bytes * kHeapTolerance);
}

TEST_F(HeapExport, PidAndCommandChooseTheProcesses) {
  auto sites_in = [](const std::vector<Folded>& lines) {
    std::set<std::string> sites;
    for (const HeapSite& site : kSites) {
      if (leaf_total(lines, site.function) > 0) {
        sites.insert(site.function);
      }
    }
    return sites;
  };
  std::set<std::string> parent = {kSiteA.function, kSiteB.function};
  std::set<std::string> child = {kSiteC.function};
  std::set<std::string> both = {kSiteA.function, kSiteB.function, kSiteC.function};
  EXPECT_EQ(sites_in(collapsed({"--pid", std::to_string(parent_pid_)})), parent);
  EXPECT_EQ(sites_in(collapsed({"--pid", std::to_string(child_pid_)})), child);
  // By the executable's file name; by the kernel's name of both, cut to 15 bytes.
  std::string child_program = std::filesystem::path(kHeapWorkloadNoFramePointers).filename();
  EXPECT_EQ(sites_in(collapsed({"--command", child_program})), child);
  EXPECT_EQ(sites_in(collapsed({"--command", "canopy_heap_wor"})), both);
  PprofProfile profile = pprof({"--pid", std::to_string(child_pid_)});
  ASSERT_FALSE(profile.samples.empty());
  for (const PprofSample& sample : profile.samples) {
    EXPECT_EQ(sample.labels.at("pid"), std::to_string(child_pid_));
  }
}

TEST_F(HeapExport, ASelectionOfNothingIsOneLine) {
  std::string out = dir_->file("nothing.pb.gz");
  std::vector<std::string> pids = {std::to_string(parent_pid_), std::to_string(child_pid_)};
  std::sort(pids.begin(), pids.end());  // as text
  auto no_pid = run({kCanopy, "export", recording_, "--format", "pprof", "--pid", "1", "-o", out});
  EXPECT_EQ(no_pid.exit_status, 1);
  EXPECT_EQ(no_pid.err, "canopy: no heap profile of PID 1 in '" + recording_ + "' (profiled: " + pids[0] + ", " +
                            pids[1] + ")\n");
  auto no_command = run({kCanopy, "export", recording_, "--format", "collapsed", "--command", "make"});
  EXPECT_EQ(no_command.exit_status, 1);
  EXPECT_EQ(no_command.err,
            "canopy: no heap profile of a command named 'make' in '" + recording_ + "' (profiled: canopy_heap_wor)\n");
  EXPECT_EQ(no_command.out, "");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(HeapExportInput, ARecordingWithoutAHeapProfileIsRefused) {
  TempDir dir;
  std::string recording = dir.file("plain.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", recording, kWorkload, "exit", "0"}).exit_status, 0);
  for (const char* format : {"pprof", "collapsed"}) {
    std::string out = dir.file(std::string("out.") + format);
    auto result = run({kCanopy, "export", recording, "--format", format, "-o", out});
    EXPECT_EQ(result.exit_status, 1) << format;
    EXPECT_EQ(result.err, "canopy: '" + recording + "' has no heap profile: record with --heap\n") << format;
    EXPECT_FALSE(std::filesystem::exists(out)) << format;
  }
}

TEST(HeapExportInput, PprofIsNotWrittenToATerminal) {
  // script(1) gives the command a terminal for its stdout.
  auto result = run({"script", "-qec", kCanopy + " export /nonexistent.canopy --format pprof", "/dev/null"});
  EXPECT_EQ(result.exit_status, 2) << result.out;
  EXPECT_NE(result.out.find("canopy: --format pprof writes gzipped protobuf: give -o FILE, or redirect stdout to a "
                            "file or a pipe"),
            std::string::npos)
      << result.out;
}

}  // namespace
}  // namespace canopy::testing
