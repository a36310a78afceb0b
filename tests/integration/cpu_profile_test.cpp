// record --cpu-profile and `canopy profile` on real processes: the CPU workload
// (tests/workload/cpu_workload.c) spends 7 parts of its work in hot_function for every
// 3 in cold_function, by iterations of one loop, for a given number of seconds of its
// own CPU time.
//
// Why the shares must come within 10 points: each sample lands in hot_function with
// the probability p = 0.7 of its share of the CPU time, independently enough of the
// others (the period is not a multiple of a chunk of work: 999 Hz against chunks of
// some milliseconds, and the kernel's cpu-clock jitters). With n samples, Hoeffding's
// inequality bounds a miss, |share - p| >= 0.1, by 2 exp(-2 n 0.1^2) = 2 exp(-n / 50):
// 7.6e-11 for n = 1200, under 1e-9 from n = 1071. The test records 2 s of CPU at
// 999 Hz, about 2000 samples whatever the machine's speed or load (the event counts
// the process's CPU time, not the wall clock), and checks that it got at least 1200
// before it judges the shares, so that the bound holds for the run it judges.
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <nlohmann/json.hpp>

#include "common/perf_map_path.h"
#include "common/vdso_image.h"
#include "integration/harness.h"
#include "integration/pprof_decoded.h"
#include "probe/perf_sampling.h"
#include "support/elf_sections.h"

namespace canopy::testing {
namespace {

const std::string kCpuWorkload = CANOPY_CPU_WORKLOAD_BIN;
const std::string kCpuWorkloadNoFramePointers = CANOPY_CPU_WORKLOAD_NOFP_BIN;
const std::string kCpuWorkloadLld = CANOPY_CPU_WORKLOAD_LLD_BIN;
const std::string kCpuWorkloadGold = CANOPY_CPU_WORKLOAD_GOLD_BIN;
constexpr int64_t kSamplesTheBoundNeeds = 1200;

// `canopy profile --json` of one process (pid 0: merged), the recording's own account.
nlohmann::json profile_json(const std::string& path, int64_t pid) {
  std::vector<std::string> argv = {kCanopy, "profile", path, "--json", "--top", "50"};
  if (pid != 0) {
    argv.push_back("--pid");
    argv.push_back(std::to_string(pid));
  }
  auto result = run(argv);
  EXPECT_EQ(result.exit_status, 0) << result.err;
  return nlohmann::json::parse(result.out, nullptr, /*allow_exceptions=*/false);
}

// A function's self and total samples in a group, 0 when it is not listed.
std::pair<int64_t, int64_t> samples_of(const nlohmann::json& group, const std::string& function) {
  for (const auto& row : group["by_total"]) {
    if (row["function"] == function) {
      return {row["self_samples"].get<int64_t>(), row["total_samples"].get<int64_t>()};
    }
  }
  return {0, 0};
}

void expect_the_split(const nlohmann::json& group) {
  const int64_t samples = group["samples"].get<int64_t>();
  ASSERT_GE(samples, kSamplesTheBoundNeeds) << "too few samples for the bound the test relies on";
  auto [hot_self, hot_total] = samples_of(group, "hot_function");
  auto [cold_self, cold_total] = samples_of(group, "cold_function");
  const double hot_share = static_cast<double>(hot_self) / static_cast<double>(samples);
  const double cold_share = static_cast<double>(cold_self) / static_cast<double>(samples);
  EXPECT_NEAR(hot_share, 0.7, 0.1) << hot_self << " of " << samples;
  EXPECT_NEAR(cold_share, 0.3, 0.1) << cold_self << " of " << samples;
  // The stacks reach main through the workload's own frames.
  auto [main_self, main_total] = samples_of(group, "main");
  EXPECT_GE(main_total, hot_total + cold_total) << "main is below every sample of the two functions";
  EXPECT_GT(samples_of(group, "split").second, 0);
}

TEST(CpuProfile, SharesOfTwoFunctionsComeWithinTenPoints) {
  TempDir dir;
  std::string path = dir.file("cpu.canopy");
  auto result = run({kCanopy, "record", "-q", "--cpu-profile=999", "-o", path, "--", kCpuWorkload, "split", "2"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  EXPECT_EQ(reader.format_version(), 4);
  EXPECT_EQ(reader.meta().cpu_profile.value_or("").rfind("999 Hz, ", 0), 0u) << reader.meta().cpu_profile.value_or("");
  auto profile = reader.cpu_profile();
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  ASSERT_FALSE(profile->samples.empty());
  // Every sample is of the workload's process, whether the recorder named it or the
  // reader found it by PID and time (a sample read after the process ended).
  auto by_process = run({kCanopy, "profile", path, "--json", "--per-process"});
  ASSERT_EQ(by_process.exit_status, 0) << by_process.err;
  nlohmann::json groups = nlohmann::json::parse(by_process.out, nullptr, false)["groups"];
  ASSERT_EQ(groups.size(), 1u) << groups.dump();
  EXPECT_EQ(groups[0]["command"], "canopy_cpu_work") << "the kernel's 15-byte name of the workload";
  nlohmann::json json = profile_json(path, 0);
  ASSERT_EQ(json["groups"].size(), 1u) << json.dump();
  expect_the_split(json["groups"][0]);
  // The CPU profile keeps its stacks in the heap profile's tables, which say nothing of
  // a heap here: the summary has no heap profile line.
  auto summary = run({kCanopy, "report", path});
  EXPECT_NE(summary.out.find("  cpu profile        999 Hz, "), std::string::npos) << summary.out;
  EXPECT_EQ(summary.out.find("heap profile"), std::string::npos) << summary.out;
}

TEST(CpuProfile, AChildStartedByForkAndExecIsProfiledToo) {
  TempDir dir;
  std::string path = dir.file("spawn.canopy");
  auto result = run({kCanopy, "record", "-q", "--cpu-profile=999", "-o", path, "--", kCpuWorkload, "spawn", "2"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  auto processes = reader.processes();
  ASSERT_TRUE(processes.ok());
  ASSERT_EQ(processes->size(), 2u);
  const int64_t parent = (*processes)[0].pid;
  const int64_t child = (*processes)[1].pid;
  EXPECT_NE(result.out.find("child " + std::to_string(child)), std::string::npos) << result.out;
  nlohmann::json child_json = profile_json(path, child);
  ASSERT_EQ(child_json["groups"].size(), 1u) << child_json.dump();
  expect_the_split(child_json["groups"][0]);
  // The parent's own tenth, before the fork, under main (spawn may be inlined): all of
  // its samples but the dynamic loader's millisecond or two before main, and a few in
  // waitpid's system call (with main on their user stack too).
  nlohmann::json parent_json = profile_json(path, parent);
  ASSERT_EQ(parent_json["groups"].size(), 1u) << parent_json.dump();
  const nlohmann::json& group = parent_json["groups"][0];
  EXPECT_GT(group["samples"].get<int64_t>(), 0);
  EXPECT_EQ(samples_of(group, "hot_function").second, 0);
  EXPECT_GE(samples_of(group, "main").second * 10, group["samples"].get<int64_t>() * 9) << group.dump();
}

// The exports take the selection `canopy profile` takes, and say what it says: the
// child's samples, as folded stacks and as pprof decoded by protoc.
TEST(CpuProfile, CollapsedAndPprofExportsAgreeWithTheProfile) {
  TempDir dir;
  std::string path = dir.file("export.canopy");
  auto result = run({kCanopy, "record", "-q", "--cpu-profile=999", "-o", path, "--", kCpuWorkload, "spawn", "0.5"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  const int64_t child = (*reader.processes())[1].pid;
  nlohmann::json json = profile_json(path, child);
  ASSERT_EQ(json["groups"].size(), 1u);
  const int64_t samples = json["groups"][0]["samples"].get<int64_t>();
  const int64_t hot_self = samples_of(json["groups"][0], "hot_function").first;
  ASSERT_GT(hot_self, 0);

  auto folded = run({kCanopy, "export", path, "--format", "collapsed", "--pid", std::to_string(child)});
  ASSERT_EQ(folded.exit_status, 0) << folded.err;
  int64_t folded_total = 0;
  int64_t folded_hot = 0;
  std::istringstream lines(folded.out);
  for (std::string line; std::getline(lines, line);) {
    size_t space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    int64_t count = std::stoll(line.substr(space + 1));
    folded_total += count;
    if (line.find(";hot_function ") != std::string::npos) {
      // Unwound by CFI to the program's entry point, below main.
      EXPECT_EQ(line.rfind("_start;", 0), 0u) << line;
      EXPECT_NE(line.find(";__libc_start_call_main;main;split;hot_function "), std::string::npos) << line;
      folded_hot += count;
    }
  }
  EXPECT_EQ(folded_total, samples);
  EXPECT_EQ(folded_hot, hot_self);

  std::string pprof_path = dir.file("cpu.pb.gz");
  auto exported =
      run({kCanopy, "export", path, "--format", "pprof", "--pid", std::to_string(child), "-o", pprof_path});
  ASSERT_EQ(exported.exit_status, 0) << exported.err;
  std::string error;
  PprofProfile profile = decode_pprof(pprof_path, error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(profile.default_sample_type, "cpu");
  EXPECT_EQ(profile.period_type, (std::pair<std::string, std::string>{"cpu", "nanoseconds"}));
  EXPECT_EQ(profile.period, 1'000'000'000 / 999);
  int64_t pprof_total = 0;
  int64_t pprof_hot = 0;
  for (const auto& sample : profile.samples) {
    EXPECT_EQ(sample.labels.at("pid"), std::to_string(child));
    pprof_total += profile.value(sample, "samples");
    EXPECT_EQ(profile.value(sample, "cpu"), profile.value(sample, "samples") * profile.period);
    if (profile.leaf_function(sample) == "hot_function") {
      pprof_hot += profile.value(sample, "samples");
    }
  }
  EXPECT_EQ(pprof_total, samples);
  EXPECT_EQ(pprof_hot, hot_self);
  ASSERT_FALSE(profile.mappings.empty());
  EXPECT_EQ(profile.mappings[0].filename, kCpuWorkload);

  // pprof itself reads the same: hot_function's own samples, and main's cumulative
  // those whose stack passes through main (not the loader's, before main).
  int64_t through_main = 0;
  for (const auto& sample : profile.samples) {
    bool in_main = false;
    for (uint64_t id : sample.location_ids) {
      for (const PprofLine& line : profile.locations.at(id).lines) {
        in_main |= line.function == "main";
      }
    }
    through_main += in_main ? profile.value(sample, "samples") : 0;
  }
  std::vector<PprofTopRow> rows = pprof_tool_top(pprof_path, "samples", error);
  ASSERT_TRUE(error.empty()) << error;
  auto row_of = [&](const std::string& function) {
    auto row = std::find_if(rows.begin(), rows.end(), [&](const PprofTopRow& r) { return r.function == function; });
    return row == rows.end() ? PprofTopRow{} : *row;
  };
  EXPECT_EQ(row_of("hot_function").flat, hot_self);
  EXPECT_GT(through_main, hot_self);
  EXPECT_EQ(row_of("main").cum, through_main);
}

// The same workload built with -O2 -fomit-frame-pointer: the kernel's frame-pointer walk
// gives the sampled function alone (rbp is no frame pointer there), so it is the copied
// stack, unwound by CFI, that reaches main. The CFI covers every instruction of the
// workload's functions and their stack is a few hundred bytes, far within the 8 KiB
// copy: every sample of hot_function and cold_function must come with main and split
// beneath it, not most. The shares are judged as above (at least 1200 samples of 2 s
// of CPU at 999 Hz: a miss of 10 points has probability under 7.6e-11).
// The split of `workload split 2`, by stacks that all reach main through split.
void expect_stacks_that_reach_main(const std::string& workload) {
  TempDir dir;
  std::string path = dir.file("cpu.canopy");
  auto result = run({kCanopy, "record", "-q", "--cpu-profile=999", "-o", path, "--", workload, "split", "2"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  nlohmann::json json = profile_json(path, 0);
  ASSERT_EQ(json["groups"].size(), 1u) << json.dump();
  expect_the_split(json["groups"][0]);

  auto folded = run({kCanopy, "export", path, "--format", "collapsed"});
  ASSERT_EQ(folded.exit_status, 0) << folded.err;
  int64_t in_the_two = 0;
  int64_t through_main = 0;
  std::istringstream lines(folded.out);
  for (std::string line; std::getline(lines, line);) {
    const int64_t count = std::stoll(line.substr(line.rfind(' ') + 1));
    if (line.find(";hot_function ") != std::string::npos || line.find(";cold_function ") != std::string::npos) {
      in_the_two += count;
      if (line.find(";main;split;hot_function ") != std::string::npos ||
          line.find(";main;split;cold_function ") != std::string::npos) {
        through_main += count;
      } else {
        ADD_FAILURE() << "a stack that does not reach main: " << line;
      }
    }
  }
  EXPECT_GE(in_the_two, kSamplesTheBoundNeeds * 9 / 10);
  EXPECT_EQ(through_main, in_the_two);
}

TEST(CpuProfile, AProgramBuiltWithoutFramePointersStillGetsStacksThatReachMain) {
  expect_stacks_that_reach_main(kCpuWorkloadNoFramePointers);
}

// The code segment's virtual address minus its file offset, of a 64-bit ELF file.
std::optional<uint64_t> code_segment_shift(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  Elf64_Ehdr header{};
  file.read(reinterpret_cast<char*>(&header), sizeof header);
  for (int i = 0; file && i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    file.seekg(static_cast<std::streamoff>(header.e_phoff + i * sizeof segment));
    file.read(reinterpret_cast<char*>(&segment), sizeof segment);
    if (file && segment.p_type == PT_LOAD && (segment.p_flags & PF_X) != 0) {
      return segment.p_vaddr - segment.p_offset;
    }
  }
  return std::nullopt;
}

// lld, the linker rustc uses by default and many clang builds choose, starts the code
// segment in the file page that ends the read-only one, a page further on in memory
// than in the file: the profiler once placed such a program's code a page off, and
// named none of it (or the wrong function).
TEST(CpuProfile, AProgramLinkedByLldIsNamedAndReachesMain) {
  auto shift = code_segment_shift(kCpuWorkloadLld);
  ASSERT_TRUE(shift.has_value());
  ASSERT_NE(*shift, 0u) << "the workload's code lies at its file offset: not the layout this test is for";
  expect_stacks_that_reach_main(kCpuWorkloadLld);
}

// gold, which links LLVM's own libraries and tools, puts .eh_frame_hdr after .eh_frame;
// the unwinder then gives libdw the two sections' headers in the other order, so that it
// finds each frame by the table (unit/object_files_test.cpp). The stacks stay whole.
TEST(CpuProfile, AProgramLinkedByGoldIsNamedAndReachesMain) {
  auto eh_frame = elf_section(kCpuWorkloadGold, ".eh_frame");
  auto table = elf_section(kCpuWorkloadGold, ".eh_frame_hdr");
  ASSERT_TRUE(eh_frame && table);
  ASSERT_GT(table->index, eh_frame->index) << "gold put .eh_frame_hdr first: not the layout this test is for";
  expect_stacks_that_reach_main(kCpuWorkloadGold);
}

// A stack deeper than the 8 KiB copy, in code with frame pointers: 100 frames of
// `descend` over 25 KiB, under hot_function and frameless_function. The DWARF walk
// stops where the copy ends, and the kernel's frame-pointer walk (102 frames, within
// its 127) completes it past the last frame the two share: every sample under descend
// has main beneath it and exactly 100 frames of descend, none lost or repeated
// (descend's one return address is at every depth). frameless_function sets up no
// frame record, so the walk from it skips its caller: it must be joined a frame
// shallower than it would be from hot_function. The C library's clock_gettime, which
// descend calls through cpu_seconds, keeps no frame pointer either: two frames skipped.
//
// Whether any sample lands in frameless_function: it holds 3 parts of 10 of the work,
// so with at least 300 samples under descend, none does with probability under
// 0.7^300 (1e-46), whatever the period's phase (the chunks take milliseconds, the
// period 1 ms, and the kernel's cpu-clock jitters).
TEST(CpuProfile, AStackDeeperThanTheCopyIsCompletedByFramePointers) {
  TempDir dir;
  std::string path = dir.file("deep.canopy");
  auto result = run({kCanopy, "record", "-q", "--cpu-profile=999", "-o", path, "--", kCpuWorkload, "deep", "0.5"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto folded = run({kCanopy, "export", path, "--format", "collapsed"});
  ASSERT_EQ(folded.exit_status, 0) << folded.err;
  std::string under_main = ";main";
  for (int i = 0; i < 100; ++i) {
    under_main += ";descend";
  }
  under_main += ";";
  int64_t under_descend = 0;
  int64_t in_frameless = 0;
  std::istringstream lines(folded.out);
  for (std::string line; std::getline(lines, line);) {
    const std::string stack = line.substr(0, line.rfind(' ')) + ";";
    // A sample in descend itself may come on the way down or back up, fewer than 100
    // deep; the loop's samples are in what the deepest descend calls.
    if (line.find(";descend;") == std::string::npos || stack.ends_with(";descend;")) {
      continue;
    }
    const int64_t count = std::stoll(line.substr(line.rfind(' ') + 1));
    under_descend += count;
    // main, then exactly 100 of descend, then what descend called.
    const size_t at = stack.find(under_main);
    EXPECT_TRUE(at != std::string::npos && stack.compare(at + under_main.size(), 8, "descend;") != 0) << line;
    if (stack.ends_with(";descend;frameless_function;")) {
      in_frameless += count;
    }
  }
  ASSERT_GE(under_descend, 300) << "too few samples for the bound the test relies on";
  EXPECT_GT(in_frameless, 0);
}

// record --pid: the attached root's threads, and a descendant that was already running
// (the child the workload forked before canopy came), with its mappings from /proc.
// The child has about 2.7 s of its 3 s of CPU left when canopy attaches: some 2700
// samples at 999 Hz, more than the bound above needs.
TEST(CpuProfile, AttachingProfilesTheRootAndTheDescendantsAlreadyRunning) {
  TempDir dir;
  std::string path = dir.file("attach.canopy");
  Started workload({kCpuWorkload, "spawn", "3"});
  ASSERT_TRUE(workload.wait_for_output("child ")) << workload.output();
  const std::string said = workload.output();
  const int64_t child = std::stoll(said.substr(said.find("child ") + 6));
  auto result = run({kCanopy, "record", "-q", "--cpu-profile=999", "-o", path, "--pid", std::to_string(workload.pid())});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(workload.wait().exit_status, 0);
  nlohmann::json json = profile_json(path, child);
  ASSERT_EQ(json["groups"].size(), 1u) << json.dump();
  expect_the_split(json["groups"][0]);
  // Sampled once, not by its own events and by inherited ones as well: no more samples
  // than its whole CPU time (before the attach too) at 999 Hz, within 10%.
  auto reader = open_recording(path);
  int64_t child_cpu_ns = 0;
  auto processes = reader.processes();
  ASSERT_TRUE(processes.ok());
  for (const auto& process : *processes) {
    if (process.pid == child) {
      child_cpu_ns = process.cpu_user_ns.value_or(0) + process.cpu_system_ns.value_or(0);
    }
  }
  ASSERT_GT(child_cpu_ns, 0);
  EXPECT_LT(static_cast<double>(json["groups"][0]["samples"].get<int64_t>()),
            1.1 * 999 * static_cast<double>(child_cpu_ns) / 1e9);
}

// Which profile pprof and collapsed export, as docs/cpu-profile.md says: the one the
// recording holds, the one --profile names, and one line for a mix that cannot be.
TEST(CpuProfile, TheExportsPickTheProfileOrSayWhyNot) {
  TempDir dir;
  std::string both = dir.file("both.canopy");
  auto recorded = run({kCanopy, "record", "-q", "--heap", "--cpu-profile=999", "-o", both, "--", kCpuWorkload,
                       "split", "0.2"});
  ASSERT_EQ(recorded.exit_status, 0) << recorded.err;
  auto ambiguous = run({kCanopy, "export", both, "--format", "collapsed"});
  EXPECT_EQ(ambiguous.exit_status, 1);
  EXPECT_EQ(ambiguous.err, "canopy: '" + both +
                               "' has both a heap and a CPU profile: choose one with --profile heap or --profile cpu\n");
  auto cpu = run({kCanopy, "export", both, "--format", "collapsed", "--profile", "cpu"});
  EXPECT_EQ(cpu.exit_status, 0) << cpu.err;
  EXPECT_NE(cpu.out.find(";split;hot_function "), std::string::npos) << cpu.out;
  auto ranged = run({kCanopy, "export", both, "--format", "collapsed", "--from", "0s"});
  EXPECT_EQ(ranged.exit_status, 0) << ranged.err;
  EXPECT_EQ(ranged.out, cpu.out) << "--from implies the CPU profile";
  auto heap = run({kCanopy, "export", both, "--format", "collapsed", "--profile", "heap"});
  EXPECT_EQ(heap.exit_status, 0) << heap.err;
  EXPECT_EQ(heap.out.find("hot_function"), std::string::npos) << heap.out;

  for (const auto& [flags, said] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--profile", "disk"}, "canopy: unknown --profile 'disk' (known: heap, cpu)\n"},
           {{"--profile", "heap", "--from", "1s"}, "canopy: --from and --to apply to the CPU profile (--profile cpu) only\n"},
           {{"--profile", "cpu", "--at", "peak"}, "canopy: --at applies to the heap profile (--profile heap) only\n"},
           {{"--from", "2s", "--to", "1s"}, "canopy: --to 1.000 s is not after --from 2.000 s\n"}}) {
    std::vector<std::string> argv = {kCanopy, "export", both, "--format", "collapsed"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto refused = run(argv);
    EXPECT_EQ(refused.exit_status, 2) << flags[0];
    EXPECT_EQ(refused.err, said);
  }
  // A span past the recording's end would select nothing: refused, with its length.
  for (const std::string command : {"export", "profile"}) {
    std::vector<std::string> argv = {kCanopy, command, both, "--from", "1h"};
    if (command == "export") {
      argv.insert(argv.end(), {"--format", "collapsed"});
    }
    auto past = run(argv);
    EXPECT_EQ(past.exit_status, 2) << command;
    const std::string said = "canopy: --from 1 h 00 m 00 s is not before the end of '" + both + "', which lasts ";
    EXPECT_EQ(past.err.substr(0, said.size()), said) << past.err;
  }
  auto not_for_csv = run({kCanopy, "export", both, "--format", "csv", "--profile", "cpu"});
  EXPECT_EQ(not_for_csv.exit_status, 2);
  EXPECT_EQ(not_for_csv.err, "canopy: --profile applies to --format pprof and collapsed only\n");
}

// The vDSO has no file: canopy names its frames from its own vDSO, the same image under
// the same kernel, where they were "? ([vdso]+0x...)".
TEST(CpuProfile, FramesInTheVdsoAreNamed) {
  TempDir dir;
  std::string path = dir.file("vdso.canopy");
  auto result = run({kCanopy, "record", "-q", "--cpu-profile=999", "-o", path, "--", kCpuWorkload, "clock", "1"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  nlohmann::json json = profile_json(path, 0);
  ASSERT_EQ(json["groups"].size(), 1u) << json.dump();
  const nlohmann::json& group = json["groups"][0];
  // The loop is clock_gettime and little else, so well over a tenth of the samples
  // have the vDSO on their stack: with 500 samples, none does with probability under
  // 0.9^500 (1e-23).
  ASSERT_GE(group["samples"].get<int64_t>(), 500) << "too few samples for the bound the test relies on";
  int64_t in_vdso = 0;
  for (const auto& row : group["by_total"]) {
    const std::string function = row["function"];
    EXPECT_EQ(function.find(std::string(kVdsoMapName)), std::string::npos) << "an unnamed vDSO frame: " << function;
    if (function.rfind("__vdso_", 0) == 0) {
      in_vdso += row["total_samples"].get<int64_t>();
    }
  }
  EXPECT_GT(in_vdso, 0) << group.dump();
}

// JIT code lies in anonymous memory, which no object file names: the workload's copy of
// a loop is named from the perf map the workload writes, by its later line. The loop is
// all the workload runs but a clock read per chunk of work and its start, so a sample
// lands in it with probability p > 0.95; with n >= 500 samples, Hoeffding bounds the
// share falling under 0.8 by exp(-2 n 0.15^2) = exp(-22.5), 1.7e-10.
TEST(CpuProfile, JitCodeIsNamedFromThePerfMapOfItsProcess) {
  TempDir dir;
  std::string path = dir.file("jit.canopy");
  auto result = run({kCanopy, "record", "-q", "--cpu-profile=999", "-o", path, "--", kCpuWorkload, "jit", "1"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto processes = open_recording(path).processes();
  ASSERT_TRUE(processes.ok());
  ASSERT_EQ(processes->size(), 1u);
  RemovedAtEnd left_behind(perf_map_path((*processes)[0].pid));
  const std::string& map = left_behind.path();
  ASSERT_TRUE(std::filesystem::exists(map));

  nlohmann::json json = profile_json(path, 0);
  ASSERT_EQ(json["groups"].size(), 1u) << json.dump();
  const nlohmann::json& group = json["groups"][0];
  const int64_t samples = group["samples"].get<int64_t>();
  ASSERT_GE(samples, 500) << "too few samples for the bound the test relies on";
  EXPECT_GE(samples_of(group, "jit_spin").first * 10, samples * 8) << group.dump();
  EXPECT_EQ(samples_of(group, "jit_stale").second, 0) << "the earlier line named the code";

  // Without the map, the frames say where their names would have come from.
  std::filesystem::remove(map);
  auto unnamed = run({kCanopy, "profile", path});
  ASSERT_EQ(unnamed.exit_status, 0) << unnamed.err;
  EXPECT_NE(unnamed.out.find("? (perf-" + std::to_string((*processes)[0].pid) + ".map+0x"), std::string::npos)
      << unnamed.out;
  EXPECT_NE(unnamed.out.find(" (missing))"), std::string::npos) << unnamed.out;
}

TEST(CpuProfile, ARecordingWithoutOneIsToldInOneLine) {
  TempDir dir;
  std::string path = dir.file("plain.canopy");
  auto recorded = run({kCanopy, "record", "-q", "-o", path, "--", kCpuWorkload, "split", "0.05"});
  ASSERT_EQ(recorded.exit_status, 0) << recorded.err;
  auto result = run({kCanopy, "profile", path});
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_EQ(result.err, "canopy: '" + path + "' has no CPU profile: record with --cpu-profile\n");
  EXPECT_EQ(result.out, "");
}

// As nobody, with the machine's perf_event_paranoid: at 2 or less the user's own
// processes are sampled in user space alone; above (Debian's 3 refuses every user
// without CAP_PERFMON) one line says why, and the memory recording is made all the same.
TEST(CpuProfile, AnUnprivilegedUserProfilesItsOwnProcessesOrIsToldWhyNot) {
  if (::getuid() != 0) {
    GTEST_SKIP() << "needs root to become nobody";
  }
  TempDir dir;
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
  std::string path = dir.file("nobody.canopy");
  RunOptions options;
  options.prefix = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  options.cwd = dir.path();
  auto result = run({kCanopy, "record", "-q", "--cpu-profile=999", "-o", path, "--", kCpuWorkload, "split", "0.5"},
                    options);
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  ASSERT_EQ(reader.processes()->size(), 1u);
  EXPECT_FALSE(reader.ticks()->empty());
  const std::string said = reader.meta().cpu_profile.value_or("");
  auto paranoid = probe::read_perf_event_paranoid();
  ASSERT_TRUE(paranoid.has_value());
  if (*paranoid <= 2) {
    EXPECT_EQ(said, "999 Hz, user time only (kernel time unseen), stacks by DWARF CFI and frame pointers");
    EXPECT_EQ(result.err, "");
    nlohmann::json json = profile_json(path, 0);
    ASSERT_EQ(json["groups"].size(), 1u) << json.dump();
    // 0.5 s at 999 Hz: about 500 samples; hot_function's 70% is below 50% with
    // probability under 2 exp(-2 * 300 * 0.2^2) = 7.6e-11 once there are 300.
    const int64_t samples = json["groups"][0]["samples"].get<int64_t>();
    ASSERT_GE(samples, 300);
    EXPECT_GT(samples_of(json["groups"][0], "hot_function").first * 2, samples);
  } else {
    EXPECT_EQ(said.rfind("off: perf_event_open on PID ", 0), 0u) << said;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_NE(result.err.find("canopy: --cpu-profile off: "), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("kernel.perf_event_paranoid is " + std::to_string(*paranoid)), std::string::npos)
        << result.err;
    EXPECT_FALSE(reader.cpu_profile()->recorded);
  }
}

}  // namespace
}  // namespace canopy::testing
