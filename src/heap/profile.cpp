#include "heap/profile.h"

#include <time.h>

#include "heap/agent.h"
#include "heap/pages.h"
#include "heap/stack_capture.h"

namespace canopy::heap {

Profile profile;

namespace {

// A new high-water mark is worth a snapshot when it is this much above the one the
// last snapshot carried; the library's thread also waits between them.
constexpr double kPeakStep = 1.25;
constexpr double kPeakFloorBytes = 1 << 20;

class Locked {
 public:
  Locked() { pthread_mutex_lock(&profile.lock); }
  ~Locked() { pthread_mutex_unlock(&profile.lock); }
};

bool ensure_ready() {
  if (profile.ready) {
    return true;
  }
  profile.born_since_snapshot = map_zeroed_array<uint64_t>(kBornCapacity);
  profile.freed_since_snapshot = map_zeroed_array<heap_wire::Freed>(kFreedCapacity);
  profile.ready = profile.stacks.init() && profile.live.init() && profile.born_since_snapshot &&
                  profile.freed_since_snapshot;
  return profile.ready;
}

// With the lock held: a survivor the next snapshot must send.
void note_born(uint64_t address) {
  if (profile.born_count < kBornCapacity) {
    profile.born_since_snapshot[profile.born_count++] = address;
  } else {
    profile.born_overflowed = true;
  }
}

// With the lock held: `freed`, out of the table, is gone.
void account_free(const LiveAllocation& freed) {
  if (freed.stack_id != StackTable::kNone) {
    StackEntry& entry = profile.stacks.entry(freed.stack_id);
    entry.freed_bytes += static_cast<double>(freed.size_bytes) / freed.probability;
    entry.freed_count += 1 / freed.probability;
    entry.changed = true;
  }
  profile.in_use_bytes -= static_cast<double>(freed.size_bytes) / freed.probability;
  if (freed.reported && profile.freed_count < kFreedCapacity) {
    profile.freed_since_snapshot[profile.freed_count++] = {freed.allocation_id, monotonic_ns()};
  }
}

}  // namespace

uint64_t monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(now.tv_nsec);
}

void record_allocation(const void* address, size_t size, double probability) {
  // Unwinding reads the loader's tables and may take its lock: before ours, never
  // under it, so that a thread in dlopen that allocates cannot wait on us while we
  // wait on it.
  CapturedStack stack;
  capture_stack(stack);
  uint64_t now = monotonic_ns();
  bool peak = false;
  {
    Locked locked;
    if (!ensure_ready()) {
      return;
    }
    ++profile.samples;
    uint32_t stack_id = profile.stacks.intern(stack);
    LiveAllocation allocation{reinterpret_cast<uint64_t>(address), profile.next_allocation_id++, size,
                              probability, now, stack_id, false};
    if (stack_id == StackTable::kNone || !profile.live.insert(allocation)) {
      ++profile.samples_dropped;
      return;
    }
    StackEntry& entry = profile.stacks.entry(stack_id);
    entry.allocated_bytes += static_cast<double>(size) / probability;
    entry.allocated_count += 1 / probability;
    entry.changed = true;
    note_born(allocation.address);
    profile.in_use_bytes += static_cast<double>(size) / probability;
    if (profile.in_use_bytes > profile.peak_in_use_bytes) {
      profile.peak_in_use_bytes = profile.in_use_bytes;
      peak = profile.in_use_bytes > kPeakFloorBytes &&
             profile.in_use_bytes > profile.peak_reported_bytes * kPeakStep;
    }
  }
  agent_on_sample(peak);
}

void record_free_slow(const void* address) {
  Locked locked;
  LiveAllocation freed;
  if (profile.live.remove(address, freed)) {
    account_free(freed);
  }
}

bool take_sampled_slow(const void* address, LiveAllocation& taken) {
  Locked locked;
  return profile.live.remove(address, taken);
}

void settle_taken(const LiveAllocation& taken, bool freed) {
  Locked locked;
  if (!freed && profile.live.insert(taken)) {
    if (!taken.reported) {
      note_born(taken.address);
    }
    return;
  }
  account_free(taken);  // freed, or no room to put it back: as a free() would have left it
}

}  // namespace canopy::heap
