// Memory for the library's tables, straight from the kernel: never from the allocator
// the library stands in front of. Anonymous pages cost nothing until touched.
#pragma once

#include <sys/mman.h>

#include <cstddef>

namespace canopy::heap {

template <typename T>
T* map_zeroed_array(size_t count) {
  void* memory = ::mmap(nullptr, count * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return memory == MAP_FAILED ? nullptr : static_cast<T*>(memory);
}

}  // namespace canopy::heap
