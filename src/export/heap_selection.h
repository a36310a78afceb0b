// The heap profile of a recording (record --heap) as the heap exports (pprof,
// collapsed stacks) take it: the process images asked for, each at the moment asked
// for, summed stack by stack per process. Every figure is the recording's estimate
// from sampling (heap_rows.h): a sampled allocation of s bytes stands for s / p bytes
// and 1 / p allocations, p = 1 - exp(-s / RATE).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/heap_moments.h"
#include "common/result.h"
#include "store/reader.h"

namespace canopy::exporters {

// Every member has an initializer, so that `{.pid = 7}` names only what it sets.
struct HeapExportOptions {
  int64_t pid = 0;           // only the images of this PID; 0: every one
  std::string command = "";  // only the images of processes of this name or executable; "": every one
  analyze::HeapAt at = analyze::HeapAt::kEnd;
};

struct HeapSelectedImage {
  analyze::HeapImageAt at;
  std::string command;  // the name of its process (after its last exec); "" when the recording has none
  std::string exe;      // its process's executable, "" when unknown
};

// What one stack held and had allocated in one process: its images' estimates summed.
struct HeapSample {
  int64_t stack_id = 0;
  int64_t pid = 0;
  std::string command;
  int64_t alloc_objects = 0;  // allocated from each image's start to its moment
  int64_t alloc_space = 0;
  int64_t inuse_objects = 0;  // held at each image's moment
  int64_t inuse_space = 0;
};

struct HeapSelection {
  store::HeapProfile profile;
  std::vector<HeapSelectedImage> images;  // those with a snapshot, in order of start
  std::vector<HeapSample> samples;        // by pid, command, stack id; none all zero
};

// One line naming the recording when it has no heap profile ("record with --heap"), or
// when no process image is of the PID or command asked for (with the ones there are).
Result<HeapSelection> select_heap(const store::Reader& reader, const HeapExportOptions& options);

}  // namespace canopy::exporters
