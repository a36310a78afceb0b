// report/: the heap profile of a recording (record --heap) for people (terminal text)
// and scripts (JSON): per process image, its heap at its high-water mark and at its
// end, and the stacks that held it, named.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analyze/heap_summary.h"

namespace canopy::report {

struct FrameText {
  std::string function;
  std::string location;  // "file.cpp:42", or the object it is in
  bool inlined = false;
};
// The named frames of a stack, innermost first.
using StackFrames = std::function<std::vector<FrameText>(int64_t stack_id)>;

std::string heap_text(const std::vector<analyze::HeapImageSummary>& images, int64_t recording_start_ms,
                      const StackFrames& frames);
std::string heap_json(const std::vector<analyze::HeapImageSummary>& images, int64_t recording_start_ms,
                      const StackFrames& frames);

}  // namespace canopy::report
