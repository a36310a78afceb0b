// Every operator new and delete, counted as malloc and free are. New makes its block
// with the real malloc (or aligned_alloc), as libstdc++'s does; only when that fails
// does it hand over to the real operator new, which runs the new-handler and throws
// std::bad_alloc. So the library needs nothing of libstdc++ (a C program that loads it
// does not load libstdc++), and no exception ever has to unwind a frame of ours that
// holds state. Delete forgets the block and frees it.
#include <atomic>
#include <cstddef>
#include <new>

#include "heap/allocate_counted.h"
#include "heap/next_definition.h"
#include "heap/real_allocator.h"

using canopy::heap::allocate_counted;
using canopy::heap::forget;
using canopy::heap::next_definition;
using canopy::heap::real;

namespace {

inline size_t aligned_size(size_t size, std::align_val_t alignment) {
  auto align = static_cast<size_t>(alignment);
  size_t rounded = (size + align - 1) & ~(align - 1);
  return rounded < size ? size : rounded;  // overflow: let aligned_alloc fail
}

void* counted_new(size_t size) {
  return allocate_counted(size, [&] { return real().malloc(size ? size : 1); });
}

void* counted_aligned_new(size_t size, std::align_val_t alignment) {
  return allocate_counted(size, [&] {
    return real().aligned_alloc(static_cast<size_t>(alignment), aligned_size(size ? size : 1, alignment));
  });
}

void counted_delete(void* block) {
  if (!block || canopy::heap::is_bootstrap_block(block)) {
    return;
  }
  forget(block);
  real().free(block);
}

// The next definitions of the mangled operators, looked up on a failure only.
std::atomic<void*> real_new{nullptr};
std::atomic<void*> real_new_array{nullptr};
std::atomic<void*> real_new_nothrow{nullptr};
std::atomic<void*> real_new_array_nothrow{nullptr};
std::atomic<void*> real_new_aligned{nullptr};
std::atomic<void*> real_new_array_aligned{nullptr};
std::atomic<void*> real_new_aligned_nothrow{nullptr};
std::atomic<void*> real_new_array_aligned_nothrow{nullptr};

using New = void*(size_t);
using NewNothrow = void*(size_t, const std::nothrow_t&);
using NewAligned = void*(size_t, std::align_val_t);
using NewAlignedNothrow = void*(size_t, std::align_val_t, const std::nothrow_t&);

}  // namespace

#define CANOPY_EXPORT __attribute__((visibility("default")))

CANOPY_EXPORT void* operator new(size_t size) {
  void* block = counted_new(size);
  return block ? block : next_definition<New>(real_new, "_Znwm")(size);
}
CANOPY_EXPORT void* operator new[](size_t size) {
  void* block = counted_new(size);
  return block ? block : next_definition<New>(real_new_array, "_Znam")(size);
}
CANOPY_EXPORT void* operator new(size_t size, const std::nothrow_t& tag) noexcept {
  void* block = counted_new(size);
  return block ? block : next_definition<NewNothrow>(real_new_nothrow, "_ZnwmRKSt9nothrow_t")(size, tag);
}
CANOPY_EXPORT void* operator new[](size_t size, const std::nothrow_t& tag) noexcept {
  void* block = counted_new(size);
  return block ? block : next_definition<NewNothrow>(real_new_array_nothrow, "_ZnamRKSt9nothrow_t")(size, tag);
}
CANOPY_EXPORT void* operator new(size_t size, std::align_val_t alignment) {
  void* block = counted_aligned_new(size, alignment);
  return block ? block : next_definition<NewAligned>(real_new_aligned, "_ZnwmSt11align_val_t")(size, alignment);
}
CANOPY_EXPORT void* operator new[](size_t size, std::align_val_t alignment) {
  void* block = counted_aligned_new(size, alignment);
  return block ? block
               : next_definition<NewAligned>(real_new_array_aligned, "_ZnamSt11align_val_t")(size, alignment);
}
CANOPY_EXPORT void* operator new(size_t size, std::align_val_t alignment, const std::nothrow_t& tag) noexcept {
  void* block = counted_aligned_new(size, alignment);
  return block ? block
               : next_definition<NewAlignedNothrow>(real_new_aligned_nothrow,
                                                  "_ZnwmSt11align_val_tRKSt9nothrow_t")(size, alignment, tag);
}
CANOPY_EXPORT void* operator new[](size_t size, std::align_val_t alignment, const std::nothrow_t& tag) noexcept {
  void* block = counted_aligned_new(size, alignment);
  return block ? block
               : next_definition<NewAlignedNothrow>(real_new_array_aligned_nothrow,
                                                  "_ZnamSt11align_val_tRKSt9nothrow_t")(size, alignment, tag);
}

CANOPY_EXPORT void operator delete(void* block) noexcept { counted_delete(block); }
CANOPY_EXPORT void operator delete[](void* block) noexcept { counted_delete(block); }
CANOPY_EXPORT void operator delete(void* block, size_t) noexcept { counted_delete(block); }
CANOPY_EXPORT void operator delete[](void* block, size_t) noexcept { counted_delete(block); }
CANOPY_EXPORT void operator delete(void* block, const std::nothrow_t&) noexcept { counted_delete(block); }
CANOPY_EXPORT void operator delete[](void* block, const std::nothrow_t&) noexcept { counted_delete(block); }
CANOPY_EXPORT void operator delete(void* block, std::align_val_t) noexcept { counted_delete(block); }
CANOPY_EXPORT void operator delete[](void* block, std::align_val_t) noexcept { counted_delete(block); }
CANOPY_EXPORT void operator delete(void* block, size_t, std::align_val_t) noexcept { counted_delete(block); }
CANOPY_EXPORT void operator delete[](void* block, size_t, std::align_val_t) noexcept { counted_delete(block); }
CANOPY_EXPORT void operator delete(void* block, std::align_val_t, const std::nothrow_t&) noexcept {
  counted_delete(block);
}
CANOPY_EXPORT void operator delete[](void* block, std::align_val_t, const std::nothrow_t&) noexcept {
  counted_delete(block);
}
