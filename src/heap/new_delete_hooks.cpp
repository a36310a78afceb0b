// Every operator new and delete, counted as malloc and free are. New makes its block
// with the real malloc (or aligned_alloc), as libstdc++'s does; only when that fails
// does it hand over to the real operator new, which runs the new-handler and throws
// std::bad_alloc. So the library needs nothing of libstdc++ (a C program that loads it
// does not load libstdc++), and no exception ever has to unwind a frame of ours that
// holds state. Delete forgets the block and frees it.
//
// In a process the profiler stands aside in (stand_aside.h), every operator is passed
// on whole to the next definition. In a program built with a sanitizer that is the
// sanitizer's: its report then names the operator the program called, and it checks
// that a block is freed as it was allocated (new with delete, new[] with delete[]),
// which it could not if this library made the blocks. In a program with a malloc of
// its own it is libstdc++'s, whose new calls that malloc.
#include <atomic>
#include <cstddef>
#include <new>

#include "heap/allocate_counted.h"
#include "heap/next_definition.h"
#include "heap/real_allocator.h"
#include "heap/stand_aside.h"

using canopy::heap::allocate_counted;
using canopy::heap::forget;
using canopy::heap::next_definition;
using canopy::heap::real;
using canopy::heap::standing_aside;

namespace {

inline size_t aligned_size(size_t size, std::align_val_t alignment) {
  auto align = static_cast<size_t>(alignment);
  size_t rounded = (size + align - 1) & ~(align - 1);
  return rounded < size ? size : rounded;  // overflow: let aligned_alloc fail
}

void* counted_block(size_t size) {
  return allocate_counted(size, [&] { return real().malloc(size ? size : 1); });
}

void* counted_block(size_t size, std::align_val_t alignment) {
  return allocate_counted(size, [&] {
    return real().aligned_alloc(static_cast<size_t>(alignment), aligned_size(size ? size : 1, alignment));
  });
}

// The nothrow forms' blocks: the tag only says how a failure is told.
void* counted_block(size_t size, const std::nothrow_t&) { return counted_block(size); }
void* counted_block(size_t size, std::align_val_t alignment, const std::nothrow_t&) {
  return counted_block(size, alignment);
}

void counted_delete(void* block) {
  if (!block || canopy::heap::is_bootstrap_block(block)) {
    return;
  }
  forget(block);
  real().free(block);
}

// The next definitions of the mangled operators, looked up on a failure (or where the
// profiler stands aside) only.
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
using Delete = void(void*);
using DeleteSized = void(void*, size_t);
using DeleteNothrow = void(void*, const std::nothrow_t&);
using DeleteAligned = void(void*, std::align_val_t);
using DeleteSizedAligned = void(void*, size_t, std::align_val_t);
using DeleteAlignedNothrow = void(void*, std::align_val_t, const std::nothrow_t&);

// The same of the deletes, looked up where the profiler stands aside only.
std::atomic<void*> real_delete{nullptr};
std::atomic<void*> real_delete_array{nullptr};
std::atomic<void*> real_delete_sized{nullptr};
std::atomic<void*> real_delete_array_sized{nullptr};
std::atomic<void*> real_delete_nothrow{nullptr};
std::atomic<void*> real_delete_array_nothrow{nullptr};
std::atomic<void*> real_delete_aligned{nullptr};
std::atomic<void*> real_delete_array_aligned{nullptr};
std::atomic<void*> real_delete_sized_aligned{nullptr};
std::atomic<void*> real_delete_array_sized_aligned{nullptr};
std::atomic<void*> real_delete_aligned_nothrow{nullptr};
std::atomic<void*> real_delete_array_aligned_nothrow{nullptr};

// A new: where the profiler stands aside, the next definition's, passed the call whole;
// else a counted block, or, when none could be made, the next definition's (which runs
// the new-handler, and throws).
template <typename Operator, typename... Args>
inline void* made(std::atomic<void*>& next, const char* mangled, const Args&... args) {
  if (standing_aside()) [[unlikely]] {
    return next_definition<Operator>(next, mangled)(args...);
  }
  void* block = counted_block(args...);
  return block ? block : next_definition<Operator>(next, mangled)(args...);
}

// A delete: where the profiler stands aside, the next definition's, passed the call
// whole; else the block is forgotten and freed.
template <typename Operator, typename... Rest>
inline void deleted(std::atomic<void*>& next, const char* mangled, void* block, Rest... rest) {
  if (standing_aside()) [[unlikely]] {
    return next_definition<Operator>(next, mangled)(block, rest...);
  }
  counted_delete(block);
}

}  // namespace

#define CANOPY_EXPORT __attribute__((visibility("default")))

CANOPY_EXPORT void* operator new(size_t size) { return made<New>(real_new, "_Znwm", size); }
CANOPY_EXPORT void* operator new[](size_t size) { return made<New>(real_new_array, "_Znam", size); }
CANOPY_EXPORT void* operator new(size_t size, const std::nothrow_t& tag) noexcept {
  return made<NewNothrow>(real_new_nothrow, "_ZnwmRKSt9nothrow_t", size, tag);
}
CANOPY_EXPORT void* operator new[](size_t size, const std::nothrow_t& tag) noexcept {
  return made<NewNothrow>(real_new_array_nothrow, "_ZnamRKSt9nothrow_t", size, tag);
}
CANOPY_EXPORT void* operator new(size_t size, std::align_val_t alignment) {
  return made<NewAligned>(real_new_aligned, "_ZnwmSt11align_val_t", size, alignment);
}
CANOPY_EXPORT void* operator new[](size_t size, std::align_val_t alignment) {
  return made<NewAligned>(real_new_array_aligned, "_ZnamSt11align_val_t", size, alignment);
}
CANOPY_EXPORT void* operator new(size_t size, std::align_val_t alignment, const std::nothrow_t& tag) noexcept {
  return made<NewAlignedNothrow>(real_new_aligned_nothrow, "_ZnwmSt11align_val_tRKSt9nothrow_t", size, alignment, tag);
}
CANOPY_EXPORT void* operator new[](size_t size, std::align_val_t alignment, const std::nothrow_t& tag) noexcept {
  return made<NewAlignedNothrow>(real_new_array_aligned_nothrow, "_ZnamSt11align_val_tRKSt9nothrow_t", size, alignment,
                                 tag);
}

CANOPY_EXPORT void operator delete(void* block) noexcept { deleted<Delete>(real_delete, "_ZdlPv", block); }
CANOPY_EXPORT void operator delete[](void* block) noexcept { deleted<Delete>(real_delete_array, "_ZdaPv", block); }
CANOPY_EXPORT void operator delete(void* block, size_t size) noexcept {
  deleted<DeleteSized>(real_delete_sized, "_ZdlPvm", block, size);
}
CANOPY_EXPORT void operator delete[](void* block, size_t size) noexcept {
  deleted<DeleteSized>(real_delete_array_sized, "_ZdaPvm", block, size);
}
CANOPY_EXPORT void operator delete(void* block, const std::nothrow_t& tag) noexcept {
  deleted<DeleteNothrow>(real_delete_nothrow, "_ZdlPvRKSt9nothrow_t", block, tag);
}
CANOPY_EXPORT void operator delete[](void* block, const std::nothrow_t& tag) noexcept {
  deleted<DeleteNothrow>(real_delete_array_nothrow, "_ZdaPvRKSt9nothrow_t", block, tag);
}
CANOPY_EXPORT void operator delete(void* block, std::align_val_t alignment) noexcept {
  deleted<DeleteAligned>(real_delete_aligned, "_ZdlPvSt11align_val_t", block, alignment);
}
CANOPY_EXPORT void operator delete[](void* block, std::align_val_t alignment) noexcept {
  deleted<DeleteAligned>(real_delete_array_aligned, "_ZdaPvSt11align_val_t", block, alignment);
}
CANOPY_EXPORT void operator delete(void* block, size_t size, std::align_val_t alignment) noexcept {
  deleted<DeleteSizedAligned>(real_delete_sized_aligned, "_ZdlPvmSt11align_val_t", block, size, alignment);
}
CANOPY_EXPORT void operator delete[](void* block, size_t size, std::align_val_t alignment) noexcept {
  deleted<DeleteSizedAligned>(real_delete_array_sized_aligned, "_ZdaPvmSt11align_val_t", block, size, alignment);
}
CANOPY_EXPORT void operator delete(void* block, std::align_val_t alignment, const std::nothrow_t& tag) noexcept {
  deleted<DeleteAlignedNothrow>(real_delete_aligned_nothrow, "_ZdlPvSt11align_val_tRKSt9nothrow_t", block, alignment,
                                tag);
}
CANOPY_EXPORT void operator delete[](void* block, std::align_val_t alignment, const std::nothrow_t& tag) noexcept {
  deleted<DeleteAlignedNothrow>(real_delete_array_aligned_nothrow, "_ZdaPvSt11align_val_tRKSt9nothrow_t", block,
                                alignment, tag);
}
