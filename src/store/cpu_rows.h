// The CPU profile's rows (record --cpu-profile): one row per sample the kernel took of
// a thread of the tree, naming its stack in the heap profile's stack table, which both
// profilers share (heap_rows.h: a frame is a loaded object and an address in it, the
// same in every process).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "store/heap_rows.h"

namespace canopy::store {

struct CpuSampleRow {
  int64_t t_ms = 0;
  // The process table's row; empty for a sample of a process the recorder never saw
  // (it ended between two ticks without process events).
  std::optional<int64_t> process_id = std::nullopt;
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t stack_id = 0;  // heap_stack's id; innermost frame first
};

// Everything CPU of a recording, as `canopy profile` and the exports read it: the
// samples in time order, and the shared stack, frame and module tables (ids from 1, the
// row of id i at [i - 1]).
struct CpuProfile {
  bool recorded = false;  // the recording has a cpu_sample table
  std::vector<CpuSampleRow> samples;
  std::vector<HeapModuleRow> modules;
  std::vector<HeapFrameRow> frames;
  std::vector<HeapStackRow> stacks;
};

// A copy of the profile's stack tables as a HeapProfile, the shape the symbolizer and
// the pprof writer take, since the two profilers share those tables.
inline HeapProfile stack_tables_of(const CpuProfile& profile) {
  HeapProfile tables;
  tables.modules = profile.modules;
  tables.frames = profile.frames;
  tables.stacks = profile.stacks;
  return tables;
}

}  // namespace canopy::store
