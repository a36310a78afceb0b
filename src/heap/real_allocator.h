// The allocator the library stands in front of: the next definition of each function
// after ours (glibc's, or jemalloc's, tcmalloc's...), found with dlsym(RTLD_NEXT).
// dlsym itself allocates, before any real function is known: those few calls are
// served from a static bootstrap arena, whose blocks are never given back.
#pragma once

#include <cstddef>

namespace canopy::heap {

struct RealAllocator {
  void* (*malloc)(size_t);
  void (*free)(void*);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void* (*reallocarray)(void*, size_t, size_t);
  int (*posix_memalign)(void**, size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  void* (*memalign)(size_t, size_t);
  void* (*valloc)(size_t);
  void* (*pvalloc)(size_t);
};

// Resolved on first use; until then (and while resolving) the bootstrap functions.
const RealAllocator& real();

// Blocks of the bootstrap arena: free() and realloc() must not hand them on.
bool is_bootstrap_block(const void* p);
// realloc of a bootstrap block: a real block with its contents.
void* move_out_of_bootstrap(void* p, size_t size);

}  // namespace canopy::heap
