// A program whose code, built without frame pointers, calls malloc with a frame-pointer
// register that points nowhere: -16, which a check written as `fp + 16 > top` lets
// through by wrapping. The heap profiler must see that the chain is broken and unwind
// with libunwind instead (integration/heap_test.cpp).
#include <stdio.h>
#include <stdlib.h>

enum { kBlocks = 200, kBlockBytes = 65536 };

__attribute__((noinline)) void* malloc_with_wild_frame_pointer(size_t bytes) {
  register long wild __asm__("rbp") = -16;
  __asm__ volatile("" : "+r"(wild));  // set before the call
  void* block = malloc(bytes);
  __asm__ volatile("" : : "r"(wild));  // and live across it
  return block;
}

int main(void) {
  static void* kept[kBlocks];
  for (int i = 0; i < kBlocks; ++i) {
    kept[i] = malloc_with_wild_frame_pointer(kBlockBytes);
    ((char*)kept[i])[0] = 1;
  }
  puts("allocated");
  return 0;
}
