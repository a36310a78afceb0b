// The heap profiler's microbenchmark (bench/heap.py, make bench-heap): allocation as
// fast as the allocator goes, so that the profiler's cost per call is all there is to
// see.
//
//   canopy_bench_heap_ring REPORT_FILE [ALLOCATIONS]
//
// ALLOCATIONS mallocs (10,000,000 by default) of 16-271 bytes (uniform, from a fixed
// seed), each but every 1,000th freeing the block of a 64-slot ring it takes the place
// of. Every 1,000th allocation is leaked instead, from a call site of its own
// (leak_one), so that the profiler's report must show that one stack holding
// leaked_bytes at exit: the leak is the only memory the program still holds then.
//
// At the end of main it writes one line of `key=value` to REPORT_FILE: what it did
// (mallocs, frees, the leak's blocks and bytes, exact) and what it cost by its own
// account (getrusage of all its threads, and VmHWM), so that the profiled process's
// cost is measured the same way under every profiler, apart from the profiler's other
// processes.
#include <sys/resource.h>

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int64_t kDefaultAllocations = 10'000'000;
constexpr int kRingSlots = 64;
constexpr int64_t kLeakEvery = 1000;
constexpr size_t kMinBytes = 16;
constexpr size_t kSizeSpan = 256;  // 16-271 bytes

uint64_t random_state = 0x9E3779B97F4A7C15ULL;  // fixed: every run leaks the same bytes

uint64_t next_random() {
  // xorshift64 (Marsaglia): a few cycles, next to a malloc's tens of them.
  random_state ^= random_state << 13;
  random_state ^= random_state >> 7;
  random_state ^= random_state << 17;
  return random_state;
}

// The leak's own call site. The write after the call keeps it from being a tail call,
// which would leave no frame of leak_one on the stack.
__attribute__((noinline)) unsigned char* leak_one(size_t size, unsigned char mark) {
  auto* block = static_cast<unsigned char*>(std::malloc(size));
  if (!block) {
    std::abort();
  }
  block[0] = mark;
  block[size - 1] = mark;
  return block;
}

// The ring's call site: a block of `size` in place of the one the slot held, whose
// first byte is read before it is freed (so the compiler must make both).
__attribute__((noinline)) uint64_t replace(unsigned char*& slot, size_t size, unsigned char mark) {
  uint64_t seen = 0;
  if (slot) {
    seen = slot[0];
    std::free(slot);
  }
  slot = static_cast<unsigned char*>(std::malloc(size));
  if (!slot) {
    std::abort();
  }
  slot[0] = mark;
  slot[size - 1] = mark;
  return seen;
}

int64_t peak_resident_kib() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (!status) {
    return -1;
  }
  char line[256];
  int64_t kib = -1;
  while (std::fgets(line, sizeof line, status)) {
    // "VmHWM:	    3456 kB"
    if (std::strncmp(line, "VmHWM:", 6) == 0) {
      kib = std::strtoll(line + 6, nullptr, 10);
    }
  }
  std::fclose(status);
  return kib;
}

int64_t to_ns(const timeval& t) { return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_usec * 1000; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s REPORT_FILE [ALLOCATIONS]\n", argv[0]);
    return 2;
  }
  int64_t allocations = kDefaultAllocations;
  if (argc == 3) {
    char* end = nullptr;
    allocations = std::strtoll(argv[2], &end, 10);
    if (*end != '\0' || allocations < 1) {
      std::fprintf(stderr, "canopy_bench_heap_ring: ALLOCATIONS '%s': not a whole number above 0\n", argv[2]);
      return 2;
    }
  }

  // Taken before the loop, so that the loop's allocations are all its own.
  int64_t leak_blocks = allocations / kLeakEvery;
  auto** leaked = static_cast<unsigned char**>(std::malloc(sizeof(unsigned char*) * (leak_blocks + 1)));
  unsigned char* ring[kRingSlots] = {};

  int64_t mallocs = 0;
  int64_t frees = 0;
  int64_t leaked_count = 0;
  int64_t leaked_bytes = 0;
  uint64_t checksum = 0;
  for (int64_t i = 0; i < allocations; ++i) {
    size_t size = kMinBytes + next_random() % kSizeSpan;
    auto mark = static_cast<unsigned char>(i);
    ++mallocs;
    if (i % kLeakEvery == kLeakEvery - 1) {
      leaked[leaked_count++] = leak_one(size, mark);
      leaked_bytes += static_cast<int64_t>(size);
      continue;
    }
    unsigned char*& slot = ring[i % kRingSlots];
    frees += slot ? 1 : 0;
    checksum += replace(slot, size, mark);
  }
  for (unsigned char*& slot : ring) {
    if (slot) {
      checksum += slot[0];
      std::free(slot);
      ++frees;
    }
  }
  for (int64_t i = 0; i < leaked_count; ++i) {
    checksum += leaked[i][0];
  }
  std::free(leaked);  // the list, not the blocks: those stay alive to the exit

  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  int64_t peak_kib = peak_resident_kib();
  FILE* report = std::fopen(argv[1], "w");
  if (!report) {
    std::fprintf(stderr, "canopy_bench_heap_ring: cannot write '%s': %s\n", argv[1], std::strerror(errno));
    return 1;
  }
  std::fprintf(report,
               "mallocs=%" PRId64 " frees=%" PRId64 " leaked_blocks=%" PRId64 " leaked_bytes=%" PRId64
               " checksum=%" PRIu64 " cpu_user_ns=%" PRId64 " cpu_system_ns=%" PRId64 " vm_hwm_kib=%" PRId64 "\n",
               mallocs, frees, leaked_count, leaked_bytes, checksum, to_ns(self.ru_utime), to_ns(self.ru_stime),
               peak_kib);
  std::fclose(report);
  return 0;
}
