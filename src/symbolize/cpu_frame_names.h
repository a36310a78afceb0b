// The CPU profile's frames named as `canopy profile` and the CPU exports show them:
// each recorded frame's functions, innermost first (inlined ones, then the function
// they are in), through the heap profile's HeapStackNames (the profilers share their
// stack tables and the symbolizer). A frame nothing names is "?" with its object and
// address, so that unnamed code in two objects does not read as one function.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/cpu_rows.h"
#include "symbolize/heap_stack_names.h"

namespace canopy::symbolize {

class CpuFrameNames {
 public:
  explicit CpuFrameNames(const store::CpuProfile& profile);
  CpuFrameNames(const CpuFrameNames&) = delete;
  CpuFrameNames& operator=(const CpuFrameNames&) = delete;

  const std::vector<std::string>& names_of(int64_t frame_id);

 private:
  store::HeapProfile stacks_;  // the CPU profile's modules, frames and stacks
  HeapStackNames names_;
  std::unordered_map<int64_t, std::vector<std::string>> named_;
};

}  // namespace canopy::symbolize
