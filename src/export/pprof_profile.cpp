#include "export/pprof_profile.h"

#include <protozero/pbf_writer.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "common/utf8.h"
#include "symbolize/heap_stack_names.h"

namespace canopy::exporters {
namespace {

// The field numbers of profile.proto, message by message.
namespace profile_field {
enum : protozero::pbf_tag_type {
  kSampleType = 1,
  kSample = 2,
  kMapping = 3,
  kLocation = 4,
  kFunction = 5,
  kStringTable = 6,
  kTimeNanos = 9,
  kDurationNanos = 10,
  kPeriodType = 11,
  kPeriod = 12,
  kComment = 13,
  kDefaultSampleType = 14,
};
}
namespace value_type_field {
enum : protozero::pbf_tag_type { kType = 1, kUnit = 2 };
}
namespace sample_field {
enum : protozero::pbf_tag_type { kLocationId = 1, kValue = 2, kLabel = 3 };
}
namespace label_field {
enum : protozero::pbf_tag_type { kKey = 1, kStr = 2 };
}
namespace mapping_field {
enum : protozero::pbf_tag_type {
  kId = 1,
  kMemoryStart = 2,
  kMemoryLimit = 3,
  kFileOffset = 4,
  kFilename = 5,
  kBuildId = 6,
  kHasFunctions = 7,
  kHasFilenames = 8,
  kHasLineNumbers = 9,
  kHasInlineFrames = 10,
};
}
namespace location_field {
enum : protozero::pbf_tag_type { kId = 1, kMappingId = 2, kAddress = 3, kLine = 4 };
}
namespace line_field {
enum : protozero::pbf_tag_type { kFunctionId = 1, kLine = 2 };
}
namespace function_field {
enum : protozero::pbf_tag_type { kId = 1, kName = 2, kSystemName = 3, kFilename = 4 };
}

// Each mapping's synthetic range starts at a multiple of this, above the previous
// range: far apart, so that a frame's address reads as mapping and offset in hex.
constexpr uint64_t kMappingAlignment = uint64_t{1} << 32;

// The profile's strings: every string field is an index into this table, whose first
// entry is "". Proto3 strings are UTF-8, and paths and process names can hold any bytes.
class StringTable {
 public:
  StringTable() { index(""); }

  int64_t index(std::string_view text) {
    std::string scratch;
    std::string key(sanitized_utf8(text, scratch));
    auto [at, added] = indices_.try_emplace(key, static_cast<int64_t>(strings_.size()));
    if (added) {
      strings_.push_back(std::move(key));
    }
    return at->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, int64_t> indices_;
  std::vector<std::string> strings_;
};

struct Mapping {
  const store::HeapModuleRow* module = nullptr;
  uint64_t start = 0;
  uint64_t limit = 0;
  bool resolved = false;  // its file gave names: functions and inlined frames
  bool has_filenames = false;
  bool has_line_numbers = false;
};

struct Line {
  uint64_t function_id = 0;
  int64_t line = 0;
};

struct Location {
  uint64_t id = 0;  // the frame's id in the recording
  uint64_t mapping_id = 0;  // 0: in no loaded object
  uint64_t address = 0;
  std::vector<Line> lines;  // innermost first; none when nothing names the frame
};

struct Function {
  uint64_t id = 0;
  int64_t name = 0;  // string table indices
  int64_t filename = 0;
};

// Everything of the profile but its samples, built before anything is written.
struct Tables {
  StringTable strings;
  std::vector<Mapping> mappings;  // the main programs' first: pprof takes the first as the program
  std::vector<Location> locations;
  std::vector<Function> functions;
};

// Every frame the samples' stacks pass through, each once, in order of first use.
std::vector<int64_t> frames_used(const store::HeapProfile& stacks, const PprofProfile& input) {
  std::vector<int64_t> frames;
  std::set<int64_t> seen;
  for (const PprofSample& sample : input.samples) {
    for (int64_t frame_id : stacks.stacks[static_cast<size_t>(sample.stack_id - 1)].frame_ids) {
      if (seen.insert(frame_id).second) {
        frames.push_back(frame_id);
      }
    }
  }
  return frames;
}

// A range for each module the frames are in, large enough for its highest frame.
Result<std::vector<Mapping>> place_mappings(const store::HeapProfile& profile, const PprofProfile& input,
                                            const std::vector<int64_t>& frames) {
  std::map<int64_t, uint64_t> highest_by_module;
  for (int64_t frame_id : frames) {
    const store::HeapFrameRow& frame = profile.frames[static_cast<size_t>(frame_id - 1)];
    if (frame.module_id) {
      uint64_t& highest = highest_by_module[*frame.module_id];
      highest = std::max(highest, static_cast<uint64_t>(frame.rel_pc));
    }
  }
  std::vector<Mapping> mappings;
  for (const auto& [module_id, highest] : highest_by_module) {
    mappings.push_back({&profile.modules[static_cast<size_t>(module_id - 1)]});
  }
  // The programs in their order, then every other object in order of its id.
  auto rank = [&](const Mapping& m) {
    return std::find(input.programs.begin(), input.programs.end(), m.module->path) - input.programs.begin();
  };
  std::stable_sort(mappings.begin(), mappings.end(),
                   [&](const Mapping& a, const Mapping& b) { return rank(a) < rank(b); });
  uint64_t next = kMappingAlignment;
  for (Mapping& mapping : mappings) {
    uint64_t highest = highest_by_module[mapping.module->id];
    if (next == 0 || highest >= UINT64_MAX - kMappingAlignment - next) {  // 0: the previous range ended at 2^64
      return Error{"cannot place '" + mapping.module->path + "' in a profile: its frames reach address " +
                   std::to_string(highest) + ", past 64 bits with the objects before it"};
    }
    mapping.start = next;
    mapping.limit = next + highest + 1;
    next = (mapping.limit / kMappingAlignment + 1) * kMappingAlignment;
  }
  return mappings;
}

// The locations of `frames`, named, and the functions they name.
void add_locations(const store::HeapProfile& stacks, const std::vector<int64_t>& frames,
                   symbolize::HeapStackNames& names, Tables& tables) {
  std::unordered_map<int64_t, size_t> mapping_of_module;
  for (size_t i = 0; i < tables.mappings.size(); ++i) {
    Mapping& mapping = tables.mappings[i];
    mapping_of_module[mapping.module->id] = i;
    mapping.resolved = names.module_state(mapping.module->id) == symbolize::ModuleState::kResolved;
  }
  std::map<std::pair<int64_t, int64_t>, uint64_t> function_ids;  // by name and file
  for (int64_t frame_id : frames) {
    const store::HeapFrameRow& frame = stacks.frames[static_cast<size_t>(frame_id - 1)];
    uint64_t in_object = static_cast<uint64_t>(frame.rel_pc);
    Location location{static_cast<uint64_t>(frame_id), 0, in_object > 0 ? in_object - 1 : 0, {}};
    Mapping* mapping = nullptr;
    if (frame.module_id) {
      size_t index = mapping_of_module.at(*frame.module_id);
      mapping = &tables.mappings[index];
      location.mapping_id = static_cast<uint64_t>(mapping->module->id);
      location.address += mapping->start;
    }
    for (const symbolize::NamedFrame& named : names.names_of(frame_id)) {
      if (named.function == "?" && named.file.empty()) {
        continue;  // nothing to say of it but its address, which the location has
      }
      int64_t name = tables.strings.index(named.function);
      int64_t file = tables.strings.index(named.file);
      auto [known, added] = function_ids.try_emplace({name, file}, tables.functions.size() + 1);
      if (added) {
        tables.functions.push_back({known->second, name, file});
      }
      location.lines.push_back({known->second, named.line});
      if (mapping) {
        mapping->has_filenames |= !named.file.empty();
        mapping->has_line_numbers |= named.line > 0;
      }
    }
    tables.locations.push_back(std::move(location));
  }
}


void add_value_type(protozero::pbf_writer& parent, protozero::pbf_tag_type tag, StringTable& strings,
                    std::string_view type, std::string_view unit) {
  protozero::pbf_writer value_type(parent, tag);
  value_type.add_int64(value_type_field::kType, strings.index(type));
  value_type.add_int64(value_type_field::kUnit, strings.index(unit));
}

void add_label(protozero::pbf_writer& sample, StringTable& strings, std::string_view key, std::string_view text) {
  protozero::pbf_writer label(sample, sample_field::kLabel);
  label.add_int64(label_field::kKey, strings.index(key));
  label.add_int64(label_field::kStr, strings.index(text));
}

std::string encode(const store::HeapProfile& stacks, const PprofProfile& input, Tables& tables) {
  std::string data;
  protozero::pbf_writer profile(data);
  StringTable& strings = tables.strings;
  for (const PprofValueType& type : input.sample_types) {
    add_value_type(profile, profile_field::kSampleType, strings, type.type, type.unit);
  }
  for (const PprofSample& sample : input.samples) {
    protozero::pbf_writer message(profile, profile_field::kSample);
    const store::HeapStackRow& stack = stacks.stacks[static_cast<size_t>(sample.stack_id - 1)];
    // A location's id is its frame's.
    std::vector<uint64_t> location_ids(stack.frame_ids.begin(), stack.frame_ids.end());
    message.add_packed_uint64(sample_field::kLocationId, location_ids.begin(), location_ids.end());
    message.add_packed_int64(sample_field::kValue, sample.values.begin(), sample.values.end());
    for (const auto& [key, text] : sample.labels) {
      add_label(message, strings, key, text);
    }
  }
  for (const Mapping& mapping : tables.mappings) {
    protozero::pbf_writer message(profile, profile_field::kMapping);
    message.add_uint64(mapping_field::kId, static_cast<uint64_t>(mapping.module->id));
    message.add_uint64(mapping_field::kMemoryStart, mapping.start);
    message.add_uint64(mapping_field::kMemoryLimit, mapping.limit);
    message.add_uint64(mapping_field::kFileOffset, 0);
    message.add_int64(mapping_field::kFilename, strings.index(mapping.module->path));
    message.add_int64(mapping_field::kBuildId, strings.index(mapping.module->build_id));
    message.add_bool(mapping_field::kHasFunctions, mapping.resolved);
    message.add_bool(mapping_field::kHasFilenames, mapping.resolved && mapping.has_filenames);
    message.add_bool(mapping_field::kHasLineNumbers, mapping.resolved && mapping.has_line_numbers);
    message.add_bool(mapping_field::kHasInlineFrames, mapping.resolved);
  }
  for (const Location& location : tables.locations) {
    protozero::pbf_writer message(profile, profile_field::kLocation);
    message.add_uint64(location_field::kId, location.id);
    message.add_uint64(location_field::kMappingId, location.mapping_id);
    message.add_uint64(location_field::kAddress, location.address);
    for (const Line& line : location.lines) {
      protozero::pbf_writer entry(message, location_field::kLine);
      entry.add_uint64(line_field::kFunctionId, line.function_id);
      entry.add_int64(line_field::kLine, line.line);
    }
  }
  for (const Function& function : tables.functions) {
    protozero::pbf_writer message(profile, profile_field::kFunction);
    message.add_uint64(function_field::kId, function.id);
    message.add_int64(function_field::kName, function.name);
    // The name as the system knows it: a mangled name, which the symbolizer does not keep.
    message.add_int64(function_field::kSystemName, function.name);
    message.add_int64(function_field::kFilename, function.filename);
  }
  profile.add_int64(profile_field::kTimeNanos, input.time_nanos);
  profile.add_int64(profile_field::kDurationNanos, input.duration_nanos);
  add_value_type(profile, profile_field::kPeriodType, strings, input.period_type.type, input.period_type.unit);
  profile.add_int64(profile_field::kPeriod, input.period);
  std::vector<int64_t> comment_indices;
  for (const std::string& line : input.comments) {
    comment_indices.push_back(strings.index(line));
  }
  profile.add_packed_int64(profile_field::kComment, comment_indices.begin(), comment_indices.end());
  profile.add_int64(profile_field::kDefaultSampleType, strings.index(input.default_sample_type));
  // Last: every field above has put its strings in the table.
  for (const std::string& text : strings.strings()) {
    profile.add_string(profile_field::kStringTable, text);
  }
  return data;
}

}  // namespace

std::vector<std::string> heaviest_first(const std::map<std::string, int64_t>& weight_by_program) {
  std::vector<std::pair<std::string, int64_t>> ranked(weight_by_program.begin(), weight_by_program.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> programs;
  for (auto& [path, weight] : ranked) {
    programs.push_back(std::move(path));
  }
  return programs;
}

Result<std::string> encode_pprof(const store::HeapProfile& stacks, const PprofProfile& profile) {
  std::vector<int64_t> frames = frames_used(stacks, profile);
  Tables tables;
  ASSIGN_OR_RETURN(tables.mappings, place_mappings(stacks, profile, frames));
  symbolize::HeapStackNames names(stacks);
  add_locations(stacks, frames, names, tables);
  return encode(stacks, profile, tables);
}

}  // namespace canopy::exporters
