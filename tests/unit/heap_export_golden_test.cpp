// The heap exports (pprof, collapsed stacks) of the fixture recording's heap profile
// (support/export_fixture.h), compared with their golden files in
// tests/fixtures/export/; the folded frame's escaping; and what the pprof comments say
// of a process still running when the recording ended or its recorder was killed. The
// pprof golden is the Profile message before gzip, printed field by field with its
// strings resolved (gzip's bytes may change with zlib's version; the message may not).
//
// A change to the output fails here until the golden files are regenerated, on
// purpose, and the diff read:
//   CANOPY_REGENERATE_GOLDEN=1 build/tests/canopy_unit_tests --gtest_filter='HeapExportGolden.*'
//   git diff tests/fixtures/export/
// That the message is a perftools.profiles.Profile by pprof's own schema is the
// integration tests' (integration/heap_export_test.cpp, with protoc).
#include <gtest/gtest.h>

#include <protozero/pbf_reader.hpp>

#include <map>
#include <sstream>

#include "export/heap_collapsed.h"
#include "export/heap_pprof.h"
#include "export/pprof_profile.h"
#include "support/export_fixture.h"
#include "support/golden_file.h"
#include "support/temp_dir.h"

namespace canopy::testing {
namespace {

const std::string kHeapGoldenDir = std::string(CANOPY_FIXTURES) + "/export/";

// How a field of profile.proto is printed: a message, a string-table index, a packed
// list of varints, or one varint (bools as 0 and 1).
enum class Kind { kMessage, kStringIndex, kPacked, kPackedStringIndices, kVarint, kString };
struct Field {
  const char* name;
  Kind kind;
  const char* message = "";  // for kMessage: its type
};
const std::map<std::string, std::map<protozero::pbf_tag_type, Field>> kSchema = {
    {"Profile",
     {{1, {"sample_type", Kind::kMessage, "ValueType"}},
      {2, {"sample", Kind::kMessage, "Sample"}},
      {3, {"mapping", Kind::kMessage, "Mapping"}},
      {4, {"location", Kind::kMessage, "Location"}},
      {5, {"function", Kind::kMessage, "Function"}},
      {6, {"string_table", Kind::kString}},
      {9, {"time_nanos", Kind::kVarint}},
      {10, {"duration_nanos", Kind::kVarint}},
      {11, {"period_type", Kind::kMessage, "ValueType"}},
      {12, {"period", Kind::kVarint}},
      {13, {"comment", Kind::kPackedStringIndices}},
      {14, {"default_sample_type", Kind::kStringIndex}}}},
    {"ValueType", {{1, {"type", Kind::kStringIndex}}, {2, {"unit", Kind::kStringIndex}}}},
    {"Sample",
     {{1, {"location_id", Kind::kPacked}}, {2, {"value", Kind::kPacked}}, {3, {"label", Kind::kMessage, "Label"}}}},
    {"Label", {{1, {"key", Kind::kStringIndex}}, {2, {"str", Kind::kStringIndex}}}},
    {"Mapping",
     {{1, {"id", Kind::kVarint}},
      {2, {"memory_start", Kind::kVarint}},
      {3, {"memory_limit", Kind::kVarint}},
      {4, {"file_offset", Kind::kVarint}},
      {5, {"filename", Kind::kStringIndex}},
      {6, {"build_id", Kind::kStringIndex}},
      {7, {"has_functions", Kind::kVarint}},
      {8, {"has_filenames", Kind::kVarint}},
      {9, {"has_line_numbers", Kind::kVarint}},
      {10, {"has_inline_frames", Kind::kVarint}}}},
    {"Location",
     {{1, {"id", Kind::kVarint}},
      {2, {"mapping_id", Kind::kVarint}},
      {3, {"address", Kind::kVarint}},
      {4, {"line", Kind::kMessage, "Line"}}}},
    {"Line", {{1, {"function_id", Kind::kVarint}}, {2, {"line", Kind::kVarint}}}},
    {"Function",
     {{1, {"id", Kind::kVarint}},
      {2, {"name", Kind::kStringIndex}},
      {3, {"system_name", Kind::kStringIndex}},
      {4, {"filename", Kind::kStringIndex}}}},
};

// One field per line, a message's fields indented under it; a string index as its
// string, addresses in hex. A field the schema above does not know fails the test.
void print_message(protozero::data_view bytes, const std::string& type, const std::vector<std::string>& strings,
                   const std::string& indent, std::string& out) {
  protozero::pbf_reader message(bytes);
  const auto& fields = kSchema.at(type);
  while (message.next()) {
    auto field = fields.find(message.tag());
    if (field == fields.end()) {
      ADD_FAILURE() << type << " has a field " << message.tag() << " the schema does not know";
      message.skip();
      continue;
    }
    const Field& f = field->second;
    out += indent + f.name;
    auto string_at = [&](uint64_t index) {
      return index < strings.size() ? "\"" + strings[index] + "\"" : "<no string " + std::to_string(index) + ">";
    };
    switch (f.kind) {
      case Kind::kMessage:
        out += " {\n";
        print_message(message.get_view(), f.message, strings, indent + "  ", out);
        out += indent + "}\n";
        break;
      case Kind::kString:
        out += ": \"" + message.get_string() + "\"\n";
        break;
      case Kind::kStringIndex:
        out += ": " + string_at(message.get_uint64()) + "\n";
        break;
      case Kind::kPacked:
        out += ":";
        for (int64_t value : message.get_packed_int64()) {
          out += " " + std::to_string(value);
        }
        out += "\n";
        break;
      case Kind::kPackedStringIndices:
        out += ":\n";
        for (int64_t index : message.get_packed_int64()) {
          out += indent + "  " + string_at(static_cast<uint64_t>(index)) + "\n";
        }
        break;
      case Kind::kVarint: {
        uint64_t value = message.get_uint64();
        std::ostringstream text;
        bool address = std::string_view(f.name).starts_with("memory_") || std::string_view(f.name) == "address";
        address ? text << std::hex << "0x" << value : text << value;
        out += ": " + text.str() + "\n";
        break;
      }
    }
  }
}

std::string profile_text(const std::string& profile) {
  std::vector<std::string> strings;
  protozero::pbf_reader message(profile);
  while (message.next(6)) {  // string_table
    strings.push_back(message.get_string());
  }
  std::string out;
  print_message({profile.data(), profile.size()}, "Profile", strings, "", out);
  return out;
}

class HeapExportGolden : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(write_export_fixture(path_, /*with_heap=*/true), ""); }

  store::Reader reader() {
    auto reader = store::Reader::open(path_);
    EXPECT_TRUE(reader) << reader.error().message;
    return std::move(*reader);
  }

  std::string collapsed(const exporters::HeapExportOptions& options, std::string_view metric) {
    std::string out;
    auto status = exporters::write_heap_collapsed(reader(), options, metric, [&](std::string_view bytes) {
      out.append(bytes);
    });
    EXPECT_TRUE(status) << status.error().message;
    return out;
  }

  void compare(const std::string& golden_name, const std::string& out) {
    compare_with_golden(kHeapGoldenDir + golden_name, out);
  }

  TempDir dir_;
  std::string path_ = dir_.file("fixture.canopy");
};

TEST_F(HeapExportGolden, Pprof) {
  auto profile = exporters::heap_pprof_profile(reader(), {});
  ASSERT_TRUE(profile) << profile.error().message;
  compare("heap_pprof.txt", profile_text(*profile));
}

TEST_F(HeapExportGolden, PprofOfOneProcessAtItsPeak) {
  auto profile = exporters::heap_pprof_profile(reader(), {.pid = 4250, .at = analyze::HeapAt::kPeak});
  ASSERT_TRUE(profile) << profile.error().message;
  compare("heap_pprof_cc1_peak.txt", profile_text(*profile));
}

TEST_F(HeapExportGolden, Collapsed) { compare("heap.folded", collapsed({}, "inuse_space")); }

TEST_F(HeapExportGolden, CollapsedAllocatedAtThePeak) {
  compare("heap_alloc_space_peak.folded", collapsed({.at = analyze::HeapAt::kPeak}, "alloc_space"));
}

// pprof names the first mapping's file as the profile's program ("File:"): in a tree
// where a shell started the program that holds the heap, that program, not the shell.
TEST(PprofMappings, TheProgramWithTheMostWeightIsTheFirst) {
  store::HeapProfile stacks;
  stacks.modules = {{1, "/nonexistent/bin/bash", ""},
                    {2, "/nonexistent/lib/libc.so.6", ""},
                    {3, "/nonexistent/bin/python3", ""}};
  stacks.frames = {{1, 2, 0x10}, {2, 1, 0x20}, {3, 3, 0x30}};
  stacks.stacks = {{1, {1, 2}}, {2, {1, 3}}};
  exporters::PprofProfile input;
  input.sample_types = {{"inuse_space", "bytes"}};
  input.samples = {{1, {100}, {}}, {2, {5000}, {}}};
  input.programs = exporters::heaviest_first({{"/nonexistent/bin/bash", 100}, {"/nonexistent/bin/python3", 5000}});
  ASSERT_EQ(input.programs, (std::vector<std::string>{"/nonexistent/bin/python3", "/nonexistent/bin/bash"}));
  auto profile = exporters::encode_pprof(stacks, input);
  ASSERT_TRUE(profile) << profile.error().message;

  std::vector<std::string> mapped_files;
  std::istringstream text(profile_text(*profile));
  bool in_mapping = false;
  for (std::string line; std::getline(text, line);) {
    in_mapping = line == "mapping {" || (in_mapping && line != "}");
    if (in_mapping && line.starts_with("  filename: ")) {
      mapped_files.push_back(line.substr(line.find('"')));
    }
  }
  EXPECT_EQ(mapped_files, (std::vector<std::string>{"\"/nonexistent/bin/python3\"", "\"/nonexistent/bin/bash\"",
                                                    "\"/nonexistent/lib/libc.so.6\""}))
      << "the programs by weight, then the other objects";
}

// A recording of one process whose heap image has a sampled snapshot and no end: the
// process was still running when the recording ended, or when its recorder was killed.
std::string write_running_image_recording(const std::string& path, bool recording_ended) {
  auto writer = store::Writer::create(path, false);
  if (!writer) {
    return writer.error().message;
  }
  store::Writer& w = *writer;
  w.set_meta({.start_ms = kFixtureStartMs});
  if (recording_ended) {
    w.set_meta({.end_ms = kFixtureStartMs + 1000});
  }
  store::ProcessRow process;
  process.pid = 77;
  process.start_ms = kFixtureStartMs;
  process.first_seen_ms = kFixtureStartMs;
  process.name = "server";
  int64_t process_id = w.add_process(process);
  if (auto enabled = w.enable_heap(); !enabled) {
    return enabled.error().message;
  }
  int64_t image_id = w.add_heap_image(
      {.process_id = process_id, .pid = 77, .started_ms = kFixtureStartMs, .rate_bytes = 4096, .unwind = "auto"});
  w.add_heap_module({.path = "/nonexistent/bin/server", .build_id = ""});
  w.add_heap_frame({.module_id = 1, .rel_pc = 0x10});
  w.add_heap_stack({.frame_ids = {1}});
  int64_t snapshot_id = w.add_heap_snapshot({.image_id = image_id,
                                             .t_ms = kFixtureStartMs + 500,
                                             .reason = "interval",
                                             .in_use_bytes = 4096,
                                             .peak_in_use_bytes = 4096,
                                             .samples = 1});
  w.add_heap_stack_totals({snapshot_id, 1, 4096, 1, 0, 0});
  auto status = w.finish();
  return status ? std::string() : status.error().message;
}

TEST(HeapExportComments, ARunningImageSaysWhetherTheRecordingEnded) {
  TempDir dir;
  for (bool ended : {true, false}) {
    SCOPED_TRACE(ended ? "ended" : "recorder killed");
    std::string path = dir.file(ended ? "ended.canopy" : "killed.canopy");
    ASSERT_EQ(write_running_image_recording(path, ended), "");
    auto reader = store::Reader::open(path);
    ASSERT_TRUE(reader) << reader.error().message;
    auto profile = exporters::heap_pprof_profile(*reader, {});
    ASSERT_TRUE(profile) << profile.error().message;
    std::string expected = ended ? "profiled until the recording ended\"\n"
                                 : "profiled until its last snapshot (the recording did not end)\"\n";
    EXPECT_NE(profile_text(*profile).find(expected), std::string::npos) << profile_text(*profile);
  }
}

TEST(HeapExportFrames, AFrameCannotSplitALineOrAStack) {
  EXPECT_EQ(exporters::folded_frame("operator;(x)\nnext\r\tend"), "operator,(x) next  end");
  EXPECT_EQ(exporters::folded_frame("ns::f(int, char) const"), "ns::f(int, char) const");
  EXPECT_EQ(exporters::folded_frame("bad\xff" "byte"), "bad\xEF\xBF\xBD" "byte");
}

}  // namespace
}  // namespace canopy::testing
