// Programs built with a sanitizer (ASan, TSan, LSan) whose runtime is their allocator.
// The profiler stands aside in them: it samples nothing, and its functions pass each
// call on to the sanitizer's, so that a sanitizer's report (a leak's stack, where a
// freed block was allocated) reads as it does without canopy.
#pragma once

#include <atomic>

namespace canopy::heap {

enum SanitizerAnswer : int { kSanitizerNotAsked = 0, kSanitizerYes = 1, kSanitizerNo = 2 };
extern std::atomic<int> sanitizer_answer;

// The answer's first asking (out of line: on every allocation, the check is a load).
bool ask_whether_a_sanitizer_allocates();

// Whether a sanitizer's runtime is in the process: each exports one interface,
// whether it is linked into the program (clang's default) or a library (gcc's).
// Looked up once, on the first call: operator new may be called by other libraries'
// constructors before the profiler's own has run.
inline bool a_sanitizer_allocates() {
  int answer = sanitizer_answer.load(std::memory_order_relaxed);
  if (answer == kSanitizerNotAsked) [[unlikely]] {
    return ask_whether_a_sanitizer_allocates();
  }
  return answer == kSanitizerYes;
}

}  // namespace canopy::heap
