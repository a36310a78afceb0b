// The pprof writer both profiles share: a gzipped perftools.profiles.Profile
// (github.com/google/pprof, proto/profile.proto), written with protozero, of samples
// that each name a stack of the recording's shared stack tables (heap_rows.h), with
// values and labels of the caller's choosing:
//   mappings      one per loaded object a stack passes through, with its path and
//                 GNU build-id, each at a synthetic address range of its own (below);
//                 the programs' own first, the one with most weight first (pprof
//                 takes the first mapping as the program and names it "File:").
//   locations     one per recorded frame, its inlined functions as more Lines,
//                 innermost first; functions by name and source file.
// Addresses: the recording keeps a frame as an address in its object's own address
// space (wherever ASLR put the object in each process), so each mapping is given a
// range of its own, [memory_start, memory_limit), starting at a multiple of 4 GiB, with
// file_offset 0; a frame's address is memory_start + its address in the object - 1
// (each recorded frame is a return address: minus one is inside the call).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "store/heap_rows.h"

namespace canopy::exporters {

struct PprofValueType {
  std::string type;
  std::string unit;
};

struct PprofSample {
  int64_t stack_id = 0;         // heap_stack's id
  std::vector<int64_t> values;  // one per sample type
  std::vector<std::pair<std::string, std::string>> labels;  // (key, text), in order
};

// The programs of `weight_by_program` (its path to, say, bytes in use), most weight
// first, for PprofProfile::programs.
std::vector<std::string> heaviest_first(const std::map<std::string, int64_t>& weight_by_program);

struct PprofProfile {
  std::vector<PprofValueType> sample_types;
  std::vector<PprofSample> samples;
  std::vector<std::string> programs;  // the paths of the programs sampled, their mappings first, in order
  int64_t time_nanos = 0;
  int64_t duration_nanos = 0;
  PprofValueType period_type;
  int64_t period = 0;
  std::vector<std::string> comments;
  std::string default_sample_type;
};

// The Profile message itself, before gzip: the same on every machine for the same
// recording and the same files on disk (the golden tests'), where gzip's bytes may
// change with zlib's version. `stacks` holds the modules, frames and stacks the
// samples name.
Result<std::string> encode_pprof(const store::HeapProfile& stacks, const PprofProfile& profile);

}  // namespace canopy::exporters
