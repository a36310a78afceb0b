// Poisson sampling by bytes (as jemalloc's and tcmalloc's profilers do): the sample
// points fall on the stream of allocated bytes at rate 1 / rate_bytes, so the gaps
// between them are exponential with mean rate_bytes, and each thread counts its own
// gap down. An allocation of `size` bytes holds at least one point with probability
// p = 1 - exp(-size / rate_bytes); weighting it by 1 / p makes the estimates of
// bytes and counts unbiased, for small and large allocations alike.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>

#include "heap/thread_state.h"

namespace canopy::heap {

// 0: sampling off. Set from the environment at load, and by the recorder's commands.
extern std::atomic<int64_t> sampling_rate_bytes;

// How far a thread counts while sampling is off before it looks again: a command
// that turns sampling on takes effect within this many bytes of each thread.
inline constexpr int64_t kOffRecheckBytes = 1 << 20;

inline double sample_probability(uint64_t size, int64_t rate_bytes) {
  return -std::expm1(-static_cast<double>(size) / static_cast<double>(rate_bytes));
}

// The hot path: true when this allocation is to be sampled (rarely).
inline bool counts_down_to_sample(ThreadState& thread, uint64_t size) {
  thread.bytes_until_sample -= static_cast<int64_t>(size);
  return thread.bytes_until_sample <= 0;
}

// After counts_down_to_sample said true: draws the next gap, and says whether the
// allocation of `size` bytes is a sample (false when sampling is off).
bool take_sample(ThreadState& thread, uint64_t size);

}  // namespace canopy::heap
