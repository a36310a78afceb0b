// Joining the kernel's frame-pointer walk of a sampled stack (PERF_SAMPLE_CALLCHAIN's
// user part) to the DWARF unwind of the same sample where the second stopped short: at
// the end of the stack copy, or at code without CFI. The walk reads the whole stack,
// but only the frames that set up a frame record: from the sampled pc it goes straight
// to the return address in the record rbp points at, skipping every frame that left
// rbp as its caller's (a leaf without a frame of its own, a function sampled in its
// prologue or epilogue, one built without frame pointers). Which DWARF frames the walk
// holds, and at which index, follows from each frame's rbp, exactly: no matching of
// return addresses, which in a recursive function are one address at every depth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "unwind/stack_unwinder.h"

namespace canopy::unwind {

// The index in `walk` of the first frame past the last of `dwarf` (innermost first,
// each with its rbp): the walk from there on is the rest of the stack. nullopt when
// the two cannot be joined: the walk holds none of the DWARF frames' return addresses,
// an rbp is unknown, or the walk disagrees with a frame it should hold (rbp was not a
// frame pointer: the walk went astray).
std::optional<size_t> frame_pointer_walk_resumes_at(std::span<const UnwoundFrame> dwarf,
                                                    std::span<const uint64_t> walk);

}  // namespace canopy::unwind
