// Programs built with a sanitizer (ASan, TSan, LSan) whose runtime is their allocator.
// The profiler stands aside in them: it samples nothing, and its functions pass each
// call on to the sanitizer's, so that a sanitizer's report (a leak's stack, where a
// freed block was allocated) reads as it does without canopy.
#pragma once

namespace canopy::heap {

// Whether a sanitizer's runtime is in the process: each exports one interface,
// whether it is linked into the program (clang's default) or a library (gcc's).
// Looked up once, on the first call: operator new may be called by other libraries'
// constructors before the profiler's own has run.
bool a_sanitizer_allocates();

}  // namespace canopy::heap
