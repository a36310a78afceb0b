// The process's heap profile: the stacks, the live sampled allocations, and what the
// next snapshot must carry. The hooks call record_allocation and record_free; the
// library's thread reads it out under the same lock. Everything in it lives in pages
// of its own, and its lock is held for table updates only, never across a call out.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

#include "heap/live_table.h"
#include "heap/stack_table.h"
#include "heap/wire_format.h"

namespace canopy::heap {

struct Profile {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  bool ready = false;  // tables mapped
  StackTable stacks;
  LiveTable live;
  uint64_t next_allocation_id = 1;
  uint64_t samples = 0;
  uint64_t samples_dropped = 0;
  double in_use_bytes = 0;
  double peak_in_use_bytes = 0;
  double peak_reported_bytes = 0;  // the peak the last snapshot carried
  // Addresses sampled since the last snapshot: those still alive at it are sent as
  // survivors without scanning the whole live table.
  uint64_t* born_since_snapshot = nullptr;
  uint32_t born_count = 0;
  bool born_overflowed = false;  // then the snapshot scans the table
  // Survivors (already sent) freed since the last snapshot.
  heap_wire::Freed* freed_since_snapshot = nullptr;
  uint32_t freed_count = 0;
};

extern Profile profile;

inline constexpr uint32_t kBornCapacity = 1u << 16;
inline constexpr uint32_t kFreedCapacity = 1u << 18;  // at least the live table's size

uint64_t monotonic_ns();

// A sampled allocation of `size` bytes at `address`, made with `probability`.
void record_allocation(const void* address, size_t size, double probability);
// Every free; does the work only when the address may have been sampled.
inline void record_free(const void* address);
void record_free_slow(const void* address);

inline void record_free(const void* address) {
  if (profile.live.may_hold(address)) [[unlikely]] {
    record_free_slow(address);
  }
}

// For realloc, whose real call frees the block only when it succeeds. The sampled
// allocation at `address` leaves the table before the call, since once the block is
// freed its address may be given to another thread; settle_taken then counts it freed,
// or puts it back when the call failed and left the block to the caller.
inline bool take_sampled(const void* address, LiveAllocation& taken);
bool take_sampled_slow(const void* address, LiveAllocation& taken);
void settle_taken(const LiveAllocation& taken, bool freed);

inline bool take_sampled(const void* address, LiveAllocation& taken) {
  return profile.live.may_hold(address) && take_sampled_slow(address, taken);
}

}  // namespace canopy::heap
