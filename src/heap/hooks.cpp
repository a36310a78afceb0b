// The C allocation functions, in front of the real ones. The hot path is a thread-local
// count down and the real call; a free() adds one load of the live table's filter.
// Each passes its call on as its last act, so that the caller's frame is the real
// allocator's caller; those that cannot (they act after the real call) pass it on
// whole in a process the profiler stands aside in (stand_aside.h): a sanitizer's
// reports name frames.
#include <malloc.h>
#include <stdlib.h>

#include <cerrno>
#include <cstddef>

#include "heap/allocate_counted.h"
#include "heap/real_allocator.h"
#include "heap/stand_aside.h"

using canopy::heap::real;

using canopy::heap::allocate_counted;
using canopy::heap::forget;

extern "C" {

__attribute__((visibility("default"))) void* malloc(size_t size) {
  return allocate_counted(size, [&] { return real().malloc(size); });
}

// The address of the profiler's own malloc, which a program's own definition of malloc
// does not replace: how the profiler tells whether it comes first (stand_aside.cpp).
void* canopy_profiler_malloc(size_t size) __attribute__((alias("malloc"), copy(malloc)));

__attribute__((visibility("default"))) void free(void* block) {
  if (!block || canopy::heap::is_bootstrap_block(block)) {
    return;
  }
  forget(block);
  real().free(block);
}

__attribute__((visibility("default"))) void* calloc(size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    return real().calloc(count, size);  // fails as it should, with ENOMEM
  }
  return allocate_counted(bytes, [&] { return real().calloc(count, size); });
}

// A realloc is a free of the old block and an allocation of the new one, when it
// succeeds. A sampled old block is taken out of the table before the real call: once
// the real realloc has freed it, another thread may be given the same address. It is
// counted freed after the call, before the new block is recorded, or put back when the
// call failed (glibc's realloc to size 0 frees the block and returns null).
__attribute__((visibility("default"))) void* realloc(void* block, size_t size) {
  if (block && canopy::heap::is_bootstrap_block(block)) {
    return canopy::heap::move_out_of_bootstrap(block, size);
  }
  if (canopy::heap::standing_aside()) [[unlikely]] {
    return real().realloc(block, size);
  }
  canopy::heap::LiveAllocation taken{};
  bool sampled = block && !canopy::heap::thread_state.in_hook && canopy::heap::take_sampled(block, taken);
  auto reallocate = [&] {
    void* moved = real().realloc(block, size);
    if (sampled) [[unlikely]] {
      canopy::heap::settle_taken(taken, moved || size == 0);
    }
    return moved;
  };
  if (block && size == 0) {
    return reallocate();
  }
  return allocate_counted(size, reallocate);
}

__attribute__((visibility("default"))) void* reallocarray(void* block, size_t count, size_t size) {
  if (canopy::heap::standing_aside() && !canopy::heap::is_bootstrap_block(block)) [[unlikely]] {
    return real().reallocarray(block, count, size);
  }
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;  // the old block stays the caller's, and ours to track
  }
  return realloc(block, bytes);
}

__attribute__((visibility("default"))) int posix_memalign(void** out, size_t alignment, size_t size) {
  if (canopy::heap::standing_aside()) [[unlikely]] {
    return real().posix_memalign(out, alignment, size);
  }
  int result = 0;
  void* block = allocate_counted(size, [&]() -> void* {
    result = real().posix_memalign(out, alignment, size);
    return result == 0 ? *out : nullptr;
  });
  if (result == 0) {
    *out = block;
  }
  return result;
}

__attribute__((visibility("default"))) void* aligned_alloc(size_t alignment, size_t size) {
  return allocate_counted(size, [&] { return real().aligned_alloc(alignment, size); });
}

__attribute__((visibility("default"))) void* memalign(size_t alignment, size_t size) {
  return allocate_counted(size, [&] { return real().memalign(alignment, size); });
}

__attribute__((visibility("default"))) void* valloc(size_t size) {
  return allocate_counted(size, [&] { return real().valloc(size); });
}

__attribute__((visibility("default"))) void* pvalloc(size_t size) {
  return allocate_counted(size, [&] { return real().pvalloc(size); });
}

}  // extern "C"
