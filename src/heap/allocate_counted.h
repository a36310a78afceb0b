// The path every allocation function shares: count down, and on the rare sample,
// make the block and record it with the thread marked as in the library, so that
// whatever the real allocator or the unwinder allocate meanwhile passes through
// uncounted.
#pragma once

#include <cstddef>

#include "heap/profile.h"
#include "heap/sampler.h"
#include "heap/thread_state.h"

namespace canopy::heap {

template <typename Allocate>
inline void* allocate_counted(size_t size, Allocate allocate) {
  ThreadState& thread = thread_state;
  if (thread.in_hook || !counts_down_to_sample(thread, size)) [[likely]] {
    return allocate();
  }
  // A count that ran out while sampling is off (or a new thread's first) is no sample:
  // its call is passed on as the common one is, so that the caller's frame is the
  // real allocator's caller (a sanitizer's report names it, not this library).
  if (!take_sample(thread, size)) {
    return allocate();
  }
  HookScope scope;
  void* block = allocate();
  if (block) {
    int64_t rate = sampling_rate_bytes.load(std::memory_order_relaxed);
    record_allocation(block, size, sample_probability(size, rate > 0 ? rate : 1));
  }
  return block;
}

// Before the real free of a block.
inline void forget(void* block) {
  if (!thread_state.in_hook) {
    record_free(block);
  }
}

}  // namespace canopy::heap
