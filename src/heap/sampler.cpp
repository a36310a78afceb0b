#include "heap/sampler.h"

#include <time.h>
#include <unistd.h>

namespace canopy::heap {

__thread ThreadState thread_state __attribute__((tls_model("initial-exec")));
std::atomic<int64_t> sampling_rate_bytes{0};

namespace {

uint64_t next_random(ThreadState& thread) {
  // xorshift64* (Vigna): fast, and plenty for drawing gaps.
  uint64_t x = thread.random_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  thread.random_state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

void seed(ThreadState& thread) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  uint64_t seed = static_cast<uint64_t>(now.tv_nsec) ^ (static_cast<uint64_t>(now.tv_sec) << 32) ^
                  (static_cast<uint64_t>(gettid()) * 0x9E3779B97F4A7C15ULL) ^
                  reinterpret_cast<uintptr_t>(&thread);
  thread.random_state = seed ? seed : 1;
}

int64_t draw_gap(ThreadState& thread, int64_t rate_bytes) {
  // A uniform in (0, 1] from the top 53 bits, then the exponential's inverse CDF.
  double uniform = static_cast<double>((next_random(thread) >> 11) + 1) * 0x1.0p-53;
  double gap = -std::log(uniform) * static_cast<double>(rate_bytes);
  return gap < 1.0 ? 1 : static_cast<int64_t>(gap);
}

}  // namespace

bool take_sample(ThreadState& thread, uint64_t size) {
  int64_t rate = sampling_rate_bytes.load(std::memory_order_relaxed);
  if (rate <= 0) {
    thread.bytes_until_sample = kOffRecheckBytes;
    return false;
  }
  if (thread.random_state == 0) {
    // A new thread's count started at zero, not at a drawn gap: draw it now and count
    // this allocation against it.
    seed(thread);
    thread.bytes_until_sample = draw_gap(thread, rate) - static_cast<int64_t>(size);
    if (thread.bytes_until_sample > 0) {
      return false;
    }
  }
  // The gap is memoryless: whatever of this allocation lies past the point is not
  // carried over, which is what makes p = 1 - exp(-size / rate) exact.
  thread.bytes_until_sample = draw_gap(thread, rate);
  return true;
}

}  // namespace canopy::heap
