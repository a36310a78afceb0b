// The next definition of a symbol the library stands in front of (the C library's
// setuid, libstdc++'s operator new), looked up on its first use and cached. Not a
// function-local static: its guard would need the C++ runtime, which the library does
// not link. Two threads that look it up at once find the same address.
#pragma once

#include <dlfcn.h>

#include <atomic>

namespace canopy::heap {

template <typename F>
F* next_definition(std::atomic<void*>& cache, const char* name) {
  void* symbol = cache.load(std::memory_order_acquire);
  if (!symbol) {
    symbol = ::dlsym(RTLD_NEXT, name);
    cache.store(symbol, std::memory_order_release);
  }
  return reinterpret_cast<F*>(symbol);
}

}  // namespace canopy::heap
