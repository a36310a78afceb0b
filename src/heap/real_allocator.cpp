#include "heap/real_allocator.h"

#include <dlfcn.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace canopy::heap {
namespace {

// dlsym needs a few hundred bytes (its error state); a program that allocates from
// another library's constructor before ours ran gets the rest.
constexpr size_t kBootstrapBytes = 256 * 1024;
constexpr size_t kBootstrapAlign = 16;
alignas(kBootstrapAlign) unsigned char bootstrap_arena[kBootstrapBytes];
std::atomic<size_t> bootstrap_used{0};

// Each bootstrap block starts with its size, for realloc.
void* bootstrap_alloc(size_t alignment, size_t size) {
  if (alignment < kBootstrapAlign) {
    alignment = kBootstrapAlign;
  }
  size_t need = size + kBootstrapAlign + alignment;
  size_t start = bootstrap_used.fetch_add(need);
  if (start + need > kBootstrapBytes) {
    return nullptr;
  }
  uintptr_t base = reinterpret_cast<uintptr_t>(bootstrap_arena) + start + kBootstrapAlign;
  uintptr_t block = (base + alignment - 1) & ~(alignment - 1);
  reinterpret_cast<size_t*>(block)[-1] = size;
  return reinterpret_cast<void*>(block);
}

void* bootstrap_malloc(size_t size) { return bootstrap_alloc(kBootstrapAlign, size); }
void bootstrap_free(void*) {}
void* bootstrap_calloc(size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    return nullptr;
  }
  return bootstrap_malloc(bytes);  // the arena is static: already zero
}
void* bootstrap_realloc(void* p, size_t size) {
  void* block = bootstrap_malloc(size);
  if (block && p) {
    size_t old = reinterpret_cast<size_t*>(p)[-1];
    std::memcpy(block, p, old < size ? old : size);
  }
  return block;
}
void* bootstrap_reallocarray(void* p, size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    return nullptr;
  }
  return bootstrap_realloc(p, bytes);
}
int bootstrap_posix_memalign(void** out, size_t alignment, size_t size) {
  *out = bootstrap_alloc(alignment, size);
  return *out ? 0 : ENOMEM;
}
void* bootstrap_aligned_alloc(size_t alignment, size_t size) { return bootstrap_alloc(alignment, size); }
void* bootstrap_valloc(size_t size) { return bootstrap_alloc(4096, size); }

constexpr RealAllocator kBootstrap = {
    bootstrap_malloc,        bootstrap_free,          bootstrap_calloc, bootstrap_realloc,
    bootstrap_reallocarray,  bootstrap_posix_memalign, bootstrap_aligned_alloc,
    bootstrap_aligned_alloc, bootstrap_valloc,        bootstrap_valloc,
};

RealAllocator resolved;
std::atomic<bool> is_resolved{false};
// Set while one thread resolves; another thread allocating meanwhile uses the arena too.
std::atomic<bool> resolving{false};

template <typename F>
void next_symbol(F*& slot, const char* name, F* fallback) {
  void* symbol = dlsym(RTLD_NEXT, name);
  slot = symbol ? reinterpret_cast<F*>(symbol) : fallback;
}

void resolve() {
  RealAllocator r = kBootstrap;
  next_symbol(r.malloc, "malloc", kBootstrap.malloc);
  next_symbol(r.free, "free", kBootstrap.free);
  next_symbol(r.calloc, "calloc", kBootstrap.calloc);
  next_symbol(r.realloc, "realloc", kBootstrap.realloc);
  next_symbol(r.reallocarray, "reallocarray", kBootstrap.reallocarray);
  next_symbol(r.posix_memalign, "posix_memalign", kBootstrap.posix_memalign);
  next_symbol(r.aligned_alloc, "aligned_alloc", kBootstrap.aligned_alloc);
  next_symbol(r.memalign, "memalign", kBootstrap.memalign);
  next_symbol(r.valloc, "valloc", kBootstrap.valloc);
  next_symbol(r.pvalloc, "pvalloc", kBootstrap.pvalloc);
  resolved = r;
  is_resolved.store(true, std::memory_order_release);
}

}  // namespace

const RealAllocator& real() {
  if (is_resolved.load(std::memory_order_acquire)) [[likely]] {
    return resolved;
  }
  bool expected = false;
  if (!resolving.compare_exchange_strong(expected, true)) {
    return kBootstrap;  // dlsym calling back into us, or another thread meanwhile
  }
  resolve();
  return resolved;
}

bool is_bootstrap_block(const void* p) {
  auto address = reinterpret_cast<uintptr_t>(p);
  auto begin = reinterpret_cast<uintptr_t>(bootstrap_arena);
  return address >= begin && address < begin + kBootstrapBytes;
}

void* move_out_of_bootstrap(void* p, size_t size) {
  void* block = real().malloc(size);
  if (block) {
    size_t old = reinterpret_cast<size_t*>(p)[-1];
    std::memcpy(block, p, old < size ? old : size);
  }
  return block;
}

}  // namespace canopy::heap
