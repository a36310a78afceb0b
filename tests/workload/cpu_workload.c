// The CPU profiler's ground truth (integration/cpu_profile_test.cpp).
//
//   cpu_workload split SECONDS   spends SECONDS of its own CPU time in chunks of work,
//                                7 parts in hot_function for every 3 in cold_function:
//                                the same loop, counted in iterations, so that the split
//                                is one of work, whatever the machine's speed or load
//   cpu_workload spawn SECONDS   first spends a tenth of SECONDS in main itself, then
//                                forks and execs `split SECONDS`, and waits for it
//   cpu_workload deep SECONDS    spends SECONDS at the bottom of kDeepFrames calls of
//                                `descend`, each with kDeepPadBytes on its stack (a stack
//                                deeper than the profiler's copy): 7 parts in
//                                hot_function for every 3 in frameless_function
//   cpu_workload clock SECONDS   spends SECONDS calling clock_gettime(CLOCK_MONOTONIC),
//                                which the vDSO answers within the process
//   cpu_workload jit SECONDS     spends SECONDS in a copy of jit_source placed in
//                                anonymous memory, as a JIT places the code it makes,
//                                and named `jit_spin` in /tmp/perf-PID.map, as V8 names
//                                it there with --perf-basic-prof (an earlier line names
//                                the same bytes `jit_stale`, as a JIT that reused them
//                                would have), which it leaves behind as V8 does
//
// C: no runtime that runs code of its own before main. The loop's body is a macro, not
// a function, so that no third function (inlined or not) holds the samples.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPIN(iterations, acc)                       \
  for (long i_ = 0; i_ < (iterations); ++i_) {      \
    (acc) = (acc) * 1664525u + 1013904223u + i_;    \
    __asm__ volatile("" : "+r"(acc));               \
  }

enum { kUnitIterations = 200000 };  // tens of microseconds: many chunks per sample period

static double cpu_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

// GCC sets up no frame in a function that calls nothing, -fno-omit-frame-pointer or
// not: the kernel's frame-pointer walk from such a leaf skips its caller. A call makes
// hot_function and cold_function ordinary frames; chunk_done costs nothing beside them.
__attribute__((noinline)) unsigned long chunk_done(unsigned long acc) {
  __asm__ volatile("" : "+r"(acc));
  return acc;
}

__attribute__((noinline)) unsigned long hot_function(unsigned long acc) {
  SPIN(7L * kUnitIterations, acc);
  return chunk_done(acc);
}

__attribute__((noinline)) unsigned long cold_function(unsigned long acc) {
  SPIN(3L * kUnitIterations, acc);
  return chunk_done(acc);
}

__attribute__((noinline)) static int split(double seconds) {
  unsigned long acc = 1;
  long chunks = 0;
  double start = cpu_seconds();
  while (cpu_seconds() - start < seconds) {
    acc = hot_function(acc);
    acc = cold_function(acc);
    ++chunks;
  }
  printf("split %ld chunks %lu\n", chunks, acc & 1);
  return 0;
}

// A leaf that sets up no frame record: rbp is still its caller's, and the kernel's
// frame-pointer walk from it skips its caller.
__attribute__((noinline)) unsigned long frameless_function(unsigned long acc) {
  SPIN(3L * kUnitIterations, acc);
  return acc;
}

enum { kDeepFrames = 100, kDeepPadBytes = 256 };  // 100 frames of over 256 bytes: > 25 KiB

__attribute__((noinline)) static unsigned long descend(int depth, double seconds) {
  volatile char pad[kDeepPadBytes];
  pad[0] = (char)depth;
  if (depth > 1) {
    return descend(depth - 1, seconds) + (unsigned long)pad[0];  // not a tail call: the frame stays
  }
  unsigned long acc = 1;
  double start = cpu_seconds();
  while (cpu_seconds() - start < seconds) {
    acc = hot_function(acc);
    acc = frameless_function(acc);
  }
  return acc + (unsigned long)pad[0];
}

// The vDSO reads the clock without a system call; under a clock source it cannot read,
// it makes the system call itself. Either way the vDSO is on the stack of the calls.
__attribute__((noinline)) static long read_clock(double seconds) {
  struct timespec now;
  long calls = 0;
  double start = cpu_seconds();
  while (cpu_seconds() - start < seconds) {
    for (int i = 0; i < 10000; ++i) {
      clock_gettime(CLOCK_MONOTONIC, &now);
      ++calls;
    }
  }
  return calls;
}

// In a section of its own, so that its bytes can be copied whole: only registers and
// immediates, nothing that refers to where it runs.
__attribute__((noinline, section("canopy_jit_source"))) unsigned long jit_source(unsigned long acc) {
  SPIN(kUnitIterations, acc);
  return acc;
}
extern const unsigned char __start_canopy_jit_source[];
extern const unsigned char __stop_canopy_jit_source[];

static int run_jit(double seconds) {
  size_t size = (size_t)(__stop_canopy_jit_source - __start_canopy_jit_source);
  size_t pages = (size + 4095) & ~(size_t)4095;
  unsigned char* code = mmap(NULL, pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  memcpy(code, __start_canopy_jit_source, size);
  if (mprotect(code, pages, PROT_READ | PROT_EXEC) != 0) {
    perror("mprotect");
    return 1;
  }
  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
  FILE* map = fopen(path, "w");
  if (!map) {
    perror(path);
    return 1;
  }
  fprintf(map, "%lx %zx jit_stale\n", (unsigned long)code, size);
  fprintf(map, "%lx %zx jit_spin\n", (unsigned long)code, size);
  fclose(map);
  unsigned long (*spin)(unsigned long) = (unsigned long (*)(unsigned long))(void*)code;
  unsigned long acc = 1;
  double start = cpu_seconds();
  while (cpu_seconds() - start < seconds) {
    acc = spin(acc);
  }
  printf("jit %lu\n", acc & 1);
  return 0;
}

static int spawn(const char* self, const char* seconds_text) {
  double seconds = atof(seconds_text);
  unsigned long acc = 1;
  double start = cpu_seconds();
  while (cpu_seconds() - start < seconds / 10) {
    SPIN(kUnitIterations, acc);
  }
  fflush(stdout);
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 1;
  }
  if (child == 0) {
    execl(self, self, "split", seconds_text, (char*)NULL);
    perror("exec");
    _exit(127);
  }
  printf("child %d %lu\n", (int)child, acc & 1);
  fflush(stdout);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char** argv) {
  if (argc == 3 && argv[1][0] == 's' && argv[1][1] == 'p' && argv[1][2] == 'l') {
    // Not `return split(...)`: at -O2 (the build without frame pointers) that is a
    // jump, and main would be on no stack of split's.
    int status = split(atof(argv[2]));
    fflush(stdout);
    return status;
  }
  if (argc == 3 && argv[1][0] == 's' && argv[1][1] == 'p' && argv[1][2] == 'a') {
    return spawn(argv[0], argv[2]);
  }
  if (argc == 3 && argv[1][0] == 'd') {
    unsigned long acc = descend(kDeepFrames, atof(argv[2]));
    printf("deep %lu\n", acc & 1);
    return 0;
  }
  if (argc == 3 && argv[1][0] == 'c') {
    long calls = read_clock(atof(argv[2]));
    printf("clock %ld calls\n", calls);
    return 0;
  }
  if (argc == 3 && argv[1][0] == 'j') {
    return run_jit(atof(argv[2]));
  }
  fprintf(stderr, "usage: %s split SECONDS | spawn SECONDS | deep SECONDS | clock SECONDS | jit SECONDS\n", argv[0]);
  return 2;
}
