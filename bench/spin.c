// A fixed amount of CPU work at the bottom of a deep stack (bench/cpu_profile.py).
//
//   canopy_bench_spin ITERATIONS
//
// Descends kFrames calls, each holding kPadBytes on its stack, then runs ITERATIONS
// rounds of a loop that lives in registers. The work is the same in every run, so what
// a profiler adds to the process's CPU time is the difference between a run sampled and
// one not. The stack makes each sample at least as dear as one of the build's: the
// kernel copies the whole 8 KiB the profiler asks for (sp is more than 8 KiB below the
// top of the stack), and its frame-pointer walk goes through every frame (built with
// frame pointers; cc1, which holds most of the build's samples, has none, and its walk
// stops after a frame or two).
//
// C: no runtime that runs code of its own before main.
#include <stdio.h>
#include <stdlib.h>

enum { kFrames = 24, kPadBytes = 512 };

__attribute__((noinline)) unsigned long spin(long iterations) {
  unsigned long acc = 1;
  for (long i = 0; i < iterations; ++i) {
    acc = acc * 1664525u + 1013904223u + (unsigned long)i;
    __asm__ volatile("" : "+r"(acc));
  }
  return acc;
}

__attribute__((noinline)) unsigned long descend(int depth, long iterations) {
  volatile char pad[kPadBytes];  // stack the copy must cover; volatile keeps it there
  pad[0] = (char)depth;
  unsigned long acc = depth == 0 ? spin(iterations) : descend(depth - 1, iterations);
  return acc + (unsigned long)pad[0];  // not a tail call: the frame stays on the stack
}

int main(int argc, char** argv) {
  char* end = NULL;
  long iterations = argc == 2 ? strtol(argv[1], &end, 10) : -1;
  if (iterations < 0 || !end || *end != '\0') {
    fprintf(stderr, "usage: canopy_bench_spin ITERATIONS\n");
    return 2;
  }
  // Printed so that the compiler must do the work; the bench reads nothing from it.
  printf("%lu\n", descend(kFrames, iterations));
  return 0;
}
