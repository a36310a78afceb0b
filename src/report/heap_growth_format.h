// report/: `canopy heap --from/--to` (which stacks grew between two moments, and how
// fast) and `canopy heap --older-than` (what was held longer than an age), as text and
// JSON, per process image.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/heap_growth.h"
#include "report/heap_format.h"

namespace canopy::report {

// The text lists `processes` of the images where a stack grew, those whose stacks
// gained the most first, and counts the rest; the JSON has every image.
std::string heap_growth_text(const std::vector<analyze::HeapImageGrowth>& images, int64_t recording_start_ms,
                             const StackFrames& frames, size_t processes);
std::string heap_growth_json(const std::vector<analyze::HeapImageGrowth>& images, int64_t recording_start_ms,
                             const StackFrames& frames);

// Likewise, of the images holding allocations older than `age_ms`, the most first.
std::string heap_aged_text(const std::vector<analyze::HeapImageAged>& images, int64_t age_ms,
                           int64_t recording_start_ms, const StackFrames& frames, size_t processes);
std::string heap_aged_json(const std::vector<analyze::HeapImageAged>& images, int64_t age_ms,
                           int64_t recording_start_ms, const StackFrames& frames);

}  // namespace canopy::report
