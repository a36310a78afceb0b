// Processes the profiler cannot stand in front of, and so stands aside in: it samples
// nothing, and its functions pass each call on whole to the next definition.
//
// - A program built with a sanitizer (ASan, TSan, LSan), whose runtime is its
//   allocator: passing each call on keeps a sanitizer's report (a leak's stack, where a
//   freed block was allocated) as it reads without canopy.
// - A program whose malloc comes before the profiler's: one that defines it itself
//   (Chromium's PartitionAlloc, a statically linked tcmalloc or jemalloc), or a
//   library preloaded ahead of the profiler. Its malloc never reaches the profiler;
//   a profile of its operator new alone would pass for the whole, and would take the
//   program's new away from its own allocator to the C library's.
#pragma once

#include <atomic>

namespace canopy::heap {

enum AsideAnswer : int { kAsideNotAsked = 0, kAsideNo = 1, kAsideForSanitizer = 2, kAsideForOwnMalloc = 3 };
extern std::atomic<int> aside_answer;

// The answer's first asking (out of line: on every allocation, the check is a load).
AsideAnswer ask_whether_to_stand_aside();

// Looked up once, on the first call: operator new may be called by other libraries'
// constructors before the profiler's own has run.
inline AsideAnswer why_standing_aside() {
  int answer = aside_answer.load(std::memory_order_relaxed);
  if (answer == kAsideNotAsked) [[unlikely]] {
    return ask_whether_to_stand_aside();
  }
  return static_cast<AsideAnswer>(answer);
}

inline bool standing_aside() { return why_standing_aside() != kAsideNo; }

// Whether the loader's first definition of a function, where a call from the program
// goes, is another object's than `own` (the profiler's). Not on the allocation path.
bool another_definition_comes_first(const char* name, const void* own);

}  // namespace canopy::heap
