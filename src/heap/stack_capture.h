// The sampled allocation's stack, as return addresses, innermost first, without the
// library's own frames. Frame pointers when the chain proves whole; otherwise (code
// built without them: most of Debian's libraries) libunwind, from DWARF call frame
// information. Neither allocates.
#pragma once

#include <cstdint>

#include "heap/wire_format.h"

namespace canopy::heap {

extern heap_wire::UnwindMode unwind_mode;

struct CapturedStack {
  uint64_t pcs[heap_wire::kMaxFrames];
  int depth;
  bool by_frame_pointers;
};

void capture_stack(CapturedStack& stack);

}  // namespace canopy::heap
