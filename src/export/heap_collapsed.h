// The heap profile of a recording (record --heap) as folded stacks, the text that
// flamegraph.pl, inferno and speedscope read: one line per distinct stack, its frames
// outermost first separated by ';', a space, and the stack's figure, summed over the
// process images asked for (heap_selection.h):
//   __libc_start_main_impl;main;(anonymous namespace)::run_parent;(anonymous namespace)::leak_site_a 3788624
// A frame is its function's name, each inlined function a frame of its own; a frame
// nothing names is its object and address. ';' in a name becomes ',' and control
// characters (a newline) a space, so that a name cannot split a line or a frame.
// Stacks whose figure is 0 are left out; lines are in byte order.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "common/result.h"
#include "export/heap_selection.h"
#include "store/reader.h"

namespace canopy::exporters {

// The figure of each stack: held at the moment (inuse_space, the default, in bytes;
// inuse_objects), or allocated from the start to it (alloc_space, alloc_objects).
// Estimates from sampling, rounded to whole bytes and allocations.
inline constexpr const char* kHeapCollapsedMetrics = "inuse_space, inuse_objects, alloc_space, alloc_objects";
inline constexpr const char* kHeapCollapsedDefaultMetric = "inuse_space";
bool is_heap_collapsed_metric(std::string_view metric);

Status write_heap_collapsed(const store::Reader& reader, const HeapExportOptions& options, std::string_view metric,
                            const std::function<void(std::string_view)>& out);

// `name` as one frame of a folded line.
std::string folded_frame(std::string_view name);

// Each folded stack and its figure as one line, "a;b;c 42", in the map's order; handed
// to `out` in chunks so that a large profile is never one string.
void write_folded_lines(const std::map<std::string, int64_t>& lines, const std::function<void(std::string_view)>& out);

}  // namespace canopy::exporters
