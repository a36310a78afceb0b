// A pprof profile as pprof's own schema reads it: the file gunzipped by gzip, decoded
// by protoc against profile.proto as github.com/google/pprof publishes it (Debian's
// golang-github-google-pprof-dev), and protoc's text format parsed into the fields the
// tests check, string indices resolved. Nothing of canopy's reads it back.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace canopy::testing {

struct PprofLine {
  std::string function;
  std::string file;
  int64_t line = 0;
};

struct PprofLocation {
  uint64_t mapping_id = 0;
  uint64_t address = 0;
  std::vector<PprofLine> lines;  // innermost first
};

struct PprofMapping {
  uint64_t id = 0;
  uint64_t memory_start = 0;
  uint64_t memory_limit = 0;
  uint64_t file_offset = 0;
  std::string filename;
  std::string build_id;
  bool has_functions = false;
  bool has_inline_frames = false;
};

struct PprofSample {
  std::vector<uint64_t> location_ids;  // the leaf first
  std::vector<int64_t> values;
  std::map<std::string, std::string> labels;  // string labels
};

struct PprofProfile {
  std::vector<std::pair<std::string, std::string>> sample_types;  // (type, unit)
  std::vector<PprofSample> samples;
  std::vector<PprofMapping> mappings;  // in the file's order: pprof takes the first as the program
  std::map<uint64_t, PprofLocation> locations;  // by id
  int64_t time_nanos = 0;
  int64_t duration_nanos = 0;
  std::pair<std::string, std::string> period_type;
  int64_t period = 0;
  std::vector<std::string> comments;
  std::string default_sample_type;

  // The value of `type` in `sample` (by the profile's sample types).
  int64_t value(const PprofSample& sample, const std::string& type) const;
  // The function the sample's leaf location names first: the innermost, inlined or not.
  std::string leaf_function(const PprofSample& sample) const;
};

// Decodes the gzipped profile at `path`; on failure, `error` says which step failed and
// what it printed, and the profile is empty.
PprofProfile decode_pprof(const std::string& path, std::string& error);

// A row of `pprof -top`: a function's own and cumulative value, as pprof names it.
struct PprofTopRow {
  int64_t flat = 0;
  int64_t cum = 0;
  std::string function;
};

// What pprof itself (built from Debian's sources by tests/CMakeLists.txt) lists for the
// profile at `path` in `sample_index`, every node kept, each value in the type's own
// unit (bytes or a count); on failure `error` says why and the list is empty.
std::vector<PprofTopRow> pprof_tool_top(const std::string& path, const std::string& sample_index,
                                        std::string& error);

}  // namespace canopy::testing
