// The CPU profile's selection and functions (analyze/cpu_profile.h) on a real
// recording written by the store's writer: samples the recorder could not name a
// process for are found by PID and time, a reused PID included; self and total count
// each sample once; the filters keep what they say; a recording without a CPU profile,
// or without what is asked for, is one line.
#include <gtest/gtest.h>

#include "analyze/cpu_profile.h"
#include "report/cpu_profile_format.h"
#include "store/reader.h"
#include "store/writer.h"
#include "support/temp_dir.h"

namespace canopy::analyze {
namespace {

using canopy::testing::TempDir;

constexpr int64_t kCpuStartMs = 1'700'000'000'000;

// Two processes with PID 100 one after the other (a reused PID), each 1 s long, and
// samples of both with no process named; function names are "f<frame id>".
struct CpuRecording {
  std::string path;
  int64_t first_id = 0;
  int64_t second_id = 0;
};

// `cpu_profile`: the meta's account; a CPU profile is written unless it says "off: ".
CpuRecording write_cpu_recording(const TempDir& dir, const std::optional<std::string>& cpu_profile = "99 Hz") {
  CpuRecording out{dir.file("cpu.canopy")};
  auto writer = store::Writer::create(out.path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  const bool with_cpu_profile = cpu_profile && cpu_profile->rfind("off: ", 0) != 0;
  writer->set_meta({.start_ms = kCpuStartMs, .cpu_profile = cpu_profile});
  store::ProcessRow first;
  first.pid = 100;
  first.start_ticks = 1;
  first.start_ms = kCpuStartMs;
  first.first_seen_ms = kCpuStartMs;
  first.end_ms = kCpuStartMs + 1000;
  first.name = "first";
  first.cmdline = {"/bin/first", "job-a"};
  out.first_id = writer->add_process(first);
  store::ProcessRow second = first;
  second.start_ticks = 500;
  second.start_ms = kCpuStartMs + 1500;
  second.first_seen_ms = kCpuStartMs + 1500;
  second.end_ms = kCpuStartMs + 2500;
  second.name = "second";
  second.cmdline = {"/bin/second", "job-b"};
  out.second_id = writer->add_process(second);
  if (with_cpu_profile) {
    EXPECT_TRUE(writer->enable_cpu_profile());
    int64_t module = writer->add_heap_module({0, "/bin/x", ""});
    int64_t leaf = writer->add_heap_frame({0, module, 0x10});
    int64_t caller = writer->add_heap_frame({0, module, 0x20});
    int64_t deep = writer->add_heap_stack({0, {leaf, caller, caller}});  // recursion in the caller
    int64_t shallow = writer->add_heap_stack({0, {caller}});
    for (int i = 0; i < 6; ++i) {
      writer->add_cpu_sample({kCpuStartMs + 100 + i, std::nullopt, 100, 100, i < 4 ? deep : shallow});
    }
    for (int i = 0; i < 3; ++i) {
      writer->add_cpu_sample({kCpuStartMs + 2000 + i, std::nullopt, 100, 101, deep});
    }
  }
  writer->set_meta({.end_ms = kCpuStartMs + 3000});
  EXPECT_TRUE(writer->finish());
  return out;
}

std::vector<std::string> names_by_frame(int64_t frame_id) { return {"f" + std::to_string(frame_id)}; }

// Every sample of the recording at `path`, merged into one list of 10 by `names`; an
// empty summary, and a failure, when it cannot be read.
CpuProfileSummary merged_summary(const std::string& path, const CpuFrameNames& names = names_by_frame) {
  auto reader = store::Reader::open(path);
  if (!reader) {
    ADD_FAILURE() << reader.error().message;
    return {};
  }
  auto selection = select_cpu_samples(*reader, {});
  if (!selection) {
    ADD_FAILURE() << selection.error().message;
    return {};
  }
  return summarize_cpu(*reader, *selection, {}, names, /*per_process=*/false, 10);
}

TEST(CpuProfileAnalysis, SamplesWithoutAProcessAreFoundByPidAndTime) {
  TempDir dir;
  CpuRecording recording = write_cpu_recording(dir);
  auto reader = store::Reader::open(recording.path);
  ASSERT_TRUE(reader) << reader.error().message;
  auto selection = select_cpu_samples(*reader, {});
  ASSERT_TRUE(selection) << selection.error().message;
  EXPECT_EQ(selection->samples.size(), 9u);
  CpuProfileSummary summary = summarize_cpu(*reader, *selection, {}, names_by_frame, /*per_process=*/true, 10);
  ASSERT_EQ(summary.groups.size(), 1u) << "one PID: per process means per PID";
  EXPECT_EQ(summary.groups[0].samples, 9);

  auto by_command = select_cpu_samples(*reader, {.command = "second"});
  ASSERT_TRUE(by_command) << by_command.error().message;
  EXPECT_EQ(by_command->samples.size(), 3u);
  auto first_only = select_cpu_samples(*reader, {.command = "first"});
  ASSERT_TRUE(first_only);
  EXPECT_EQ(first_only->samples.size(), 6u);
}

// A list says whose samples it holds: a PID's are that process's, not "all processes".
TEST(CpuProfileAnalysis, AFilteredListSaysWhoseSamplesItHolds) {
  TempDir dir;
  CpuRecording recording = write_cpu_recording(dir);
  auto reader = store::Reader::open(recording.path);
  ASSERT_TRUE(reader);
  auto summary_of = [&](const CpuSampleFilter& filter) {
    auto selection = select_cpu_samples(*reader, filter);
    EXPECT_TRUE(selection) << selection.error().message;
    return selection ? summarize_cpu(*reader, *selection, filter, names_by_frame, /*per_process=*/false, 10)
                     : CpuProfileSummary{};
  };
  EXPECT_NE(report::cpu_profile_text(summary_of({})).find("\nAll processes merged: 9 samples\n"), std::string::npos);
  EXPECT_NE(report::cpu_profile_text(summary_of({.command = "second"}))
                .find("\nThe processes of second merged: 3 samples\n"),
            std::string::npos);
  CpuProfileSummary of_pid = summary_of({.pid = 100});
  ASSERT_EQ(of_pid.groups.size(), 1u);
  EXPECT_EQ(of_pid.groups[0].pid, 100);
  // Named as the text reports name a process: its name and arguments.
  EXPECT_NE(report::cpu_profile_text(of_pid).find("\nPID 100 first job-a: 9 samples\n"), std::string::npos)
      << report::cpu_profile_text(of_pid);
}

TEST(CpuProfileAnalysis, SelfIsTheInnermostFrameAndTotalCountsASampleOnce) {
  TempDir dir;
  CpuRecording recording = write_cpu_recording(dir);
  auto reader = store::Reader::open(recording.path);
  ASSERT_TRUE(reader);
  auto selection = select_cpu_samples(*reader, {});
  ASSERT_TRUE(selection) << selection.error().message;
  CpuProfileSummary summary = summarize_cpu(*reader, *selection, {}, names_by_frame, false, 10);
  ASSERT_EQ(summary.groups.size(), 1u);
  const CpuGroup& all = summary.groups[0];
  ASSERT_EQ(all.by_total.size(), 2u);
  EXPECT_EQ(all.by_total[0].name, "f2");  // the caller: on every stack, twice on some
  EXPECT_EQ(all.by_total[0].total_samples, 9);
  EXPECT_EQ(all.by_total[0].self_samples, 2);
  EXPECT_EQ(all.by_total[1].name, "f1");
  EXPECT_EQ(all.by_total[1].total_samples, 7);
  EXPECT_EQ(all.by_total[1].self_samples, 7);
  EXPECT_EQ(all.by_self[0].name, "f1");
  EXPECT_EQ(cpu_stack_functions(selection->profile, 1, names_by_frame),
            (std::vector<std::string>{"f2", "f2", "f1"}));
}

// The caller's frame names "_start" too, as if f2 were inlined into it: _start is on every
// stack but never running itself.
std::vector<std::string> names_with_start(int64_t frame_id) {
  return frame_id == 2 ? std::vector<std::string>{"f2", "_start"} : names_by_frame(frame_id);
}

// The one list of every sample of the usual recording, its frames named by `names`.
CpuGroup merged_group(const CpuFrameNames& names) {
  TempDir dir;
  CpuProfileSummary summary = merged_summary(write_cpu_recording(dir).path, names);
  if (summary.groups.size() != 1) {
    ADD_FAILURE() << summary.groups.size() << " groups";
    return {};
  }
  return summary.groups[0];
}

TEST(CpuProfileAnalysis, TheSelfListHoldsOnlyFunctionsThatRan) {
  const CpuGroup all = merged_group(names_with_start);
  ASSERT_EQ(all.by_self.size(), 2u) << "_start never ran itself";
  EXPECT_EQ(all.by_self[0].name, "f1");
  EXPECT_EQ(all.by_self[1].name, "f2");
  ASSERT_EQ(all.by_total.size(), 3u);
  EXPECT_EQ(all.by_total[0].name, "f2")
      << "tied with _start on 9 total samples, ahead by its 2 self (its name sorts after)";
  EXPECT_EQ(all.by_total[1].name, "_start");
  EXPECT_EQ(all.by_total[1].total_samples, 9);
  EXPECT_EQ(all.by_total[1].self_samples, 0);
}

// The caller is in a stripped object: its frames are "? (x)", all of x's unnamed code as
// one name, on every stack.
std::vector<std::string> names_with_unnamed_caller(int64_t frame_id) {
  return frame_id == 2 ? std::vector<std::string>{"? (x)"} : names_by_frame(frame_id);
}

TEST(CpuProfileAnalysis, UnnamedCodeOfAnObjectCountsSelfButIsNotRankedByTotal) {
  TempDir dir;
  CpuRecording recording = write_cpu_recording(dir);
  CpuProfileSummary summary = merged_summary(recording.path, names_with_unnamed_caller);
  ASSERT_EQ(summary.groups.size(), 1u);
  const CpuGroup& all = summary.groups[0];
  ASSERT_EQ(all.by_self.size(), 2u);
  EXPECT_EQ(all.by_self[1].name, "? (x)");
  EXPECT_EQ(all.by_self[1].self_samples, 2);
  EXPECT_TRUE(all.by_self[1].unnamed_code);
  ASSERT_EQ(all.by_total.size(), 1u) << "on all 9 stacks, but as many functions as x has unnamed";
  EXPECT_EQ(all.by_total[0].name, "f1");

  std::string text = report::cpu_profile_text(summary);
  EXPECT_NE(text.find("\n         2  22.2%        -         ? (x)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("no total of its own"), std::string::npos) << text;
  EXPECT_NE(report::cpu_profile_json(summary).find("\"total_samples\": null"), std::string::npos);
  EXPECT_EQ(report::cpu_profile_text(merged_summary(recording.path)).find("no total of its own"), std::string::npos);
}

TEST(CpuProfileAnalysis, OnlyAnObjectsMergedCodeIsUnnamedCode) {
  EXPECT_TRUE(names_unnamed_code_of_object("? (cc1plus)"));
  EXPECT_TRUE(names_unnamed_code_of_object("? (libstdc++.so.6)"));
  EXPECT_TRUE(names_unnamed_code_of_object("? ([vdso])"));
  // One frame each: an address in an object, an address in none, a source line.
  EXPECT_FALSE(names_unnamed_code_of_object("? (libfoo.so+0xbe2 (missing))"));
  EXPECT_FALSE(names_unnamed_code_of_object("? (0x7f0012345678)"));
  EXPECT_FALSE(names_unnamed_code_of_object("? (parser.c:120)"));
  EXPECT_FALSE(names_unnamed_code_of_object("main"));
  EXPECT_FALSE(names_unnamed_code_of_object("operator()(int) const"));
}

// --per-process on a build: the processes that took the most, and one line for the rest.
TEST(CpuProfileText, ListsBeyondTheProcessesAskedForAreOneLine) {
  CpuProfileSummary summary;
  summary.sampling = "99 Hz";
  summary.samples = 100;
  for (auto [pid, samples] : {std::pair{11, 50}, {12, 30}, {13, 20}}) {
    summary.groups.push_back({pid, "cc1", {"cc1", "f" + std::to_string(pid) + ".c"}, samples, {}, {}});
  }
  std::string text = report::cpu_profile_text(summary, 2);
  EXPECT_NE(text.find("\nPID 11 cc1 f11.c: 50 samples\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nPID 12 cc1 f12.c: 30 samples\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("PID 13"), std::string::npos) << text;
  EXPECT_NE(text.find("\n1 more process with samples, each with at most 20: --processes 3 lists every one, --pid "
                      "one\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(report::cpu_profile_text(summary, 3).find("more process"), std::string::npos);
  EXPECT_NE(report::cpu_profile_json(summary).find("\"pid\": 13"), std::string::npos) << "the JSON has every one";
}

TEST(CpuProfileAnalysis, TimeRangesAndWhatIsNotThereAreSaid) {
  TempDir dir;
  CpuRecording recording = write_cpu_recording(dir);
  auto reader = store::Reader::open(recording.path);
  ASSERT_TRUE(reader);
  auto later = select_cpu_samples(*reader, {.from_ms = 1000});
  ASSERT_TRUE(later);
  EXPECT_EQ(later->samples.size(), 3u);
  auto early = select_cpu_samples(*reader, {.to_ms = 103});
  ASSERT_TRUE(early);
  EXPECT_EQ(early->samples.size(), 3u) << "from the start to before 103 ms";
  auto none = select_cpu_samples(*reader, {.pid = 7});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "no CPU samples of PID 7 in '" + recording.path + "' (sampled: 100)");
  auto empty_range = select_cpu_samples(*reader, {.from_ms = 2900});
  ASSERT_FALSE(empty_range);
  EXPECT_EQ(empty_range.error().message,
            "no CPU samples between 2.900 s and the end in '" + recording.path + "'");
}

// Samples that ran in code of no loaded object (JIT code without a perf map) are
// counted, and a profile where they are a share worth a word says how to name them.
TEST(CpuProfileAnalysis, SamplesInNoLoadedObjectAreCountedAndExplained) {
  TempDir dir;
  std::string path = dir.file("jit.canopy");
  {
    auto writer = store::Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    writer->set_meta({.start_ms = kCpuStartMs, .cpu_profile = "99 Hz"});
    ASSERT_TRUE(writer->enable_cpu_profile());
    int64_t module = writer->add_heap_module({0, "/usr/bin/node", ""});
    int64_t in_node = writer->add_heap_frame({0, module, 0x10});
    int64_t in_no_object = writer->add_heap_frame({0, std::nullopt, 0x7f0000001000});
    int64_t jit = writer->add_heap_stack({0, {in_no_object, in_node}});
    int64_t native = writer->add_heap_stack({0, {in_node, in_node}});
    for (int i = 0; i < 4; ++i) {
      writer->add_cpu_sample({kCpuStartMs + 100 + i, std::nullopt, 100, 100, i < 3 ? jit : native});
    }
    writer->set_meta({.end_ms = kCpuStartMs + 1000});
    ASSERT_TRUE(writer->finish());
  }
  CpuProfileSummary summary = merged_summary(path);
  EXPECT_EQ(summary.samples_outside_objects, 3);
  EXPECT_NE(report::cpu_profile_text(summary).find(
                "\n3 samples (75.0%) ran outside every loaded object: JIT code no perf map names? "),
            std::string::npos)
      << report::cpu_profile_text(summary);
  EXPECT_NE(report::cpu_profile_json(summary).find("\"samples_outside_objects\": 3"), std::string::npos);

  TempDir other;
  CpuProfileSummary all_named = merged_summary(write_cpu_recording(other).path);
  EXPECT_EQ(all_named.samples_outside_objects, 0);
  EXPECT_EQ(report::cpu_profile_text(all_named).find("outside every loaded object"), std::string::npos);
}

TEST(CpuProfileAnalysis, ARecordingWithoutACpuProfileIsOneLine) {
  TempDir dir;
  CpuRecording recording = write_cpu_recording(dir, std::nullopt);
  auto reader = store::Reader::open(recording.path);
  ASSERT_TRUE(reader);
  auto selection = select_cpu_samples(*reader, {});
  ASSERT_FALSE(selection);
  EXPECT_EQ(selection.error().message, "'" + recording.path + "' has no CPU profile: record with --cpu-profile");
}

TEST(CpuProfileAnalysis, ARefusedCpuProfileRepeatsTheKernelsAnswer) {
  TempDir dir;
  CpuRecording recording = write_cpu_recording(dir, "off: perf_event_open on PID 100: Permission denied");
  auto reader = store::Reader::open(recording.path);
  ASSERT_TRUE(reader);
  auto selection = select_cpu_samples(*reader, {});
  ASSERT_FALSE(selection);
  EXPECT_EQ(selection.error().message, "'" + recording.path +
                                           "' has no CPU profile: the kernel refused it while recording "
                                           "(perf_event_open on PID 100: Permission denied)");
}

}  // namespace
}  // namespace canopy::analyze
