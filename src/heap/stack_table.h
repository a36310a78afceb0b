// The stacks of sampled allocations, each kept once, and what was allocated and freed
// from each (estimated). Ids are dense, in order of first sight, so the library's
// thread sends the new ones by counting. Fixed size, in pages of its own; callers hold
// the profile's lock.
#pragma once

#include <cstdint>

#include "heap/stack_capture.h"

namespace canopy::heap {

struct StackEntry {
  uint64_t hash;
  uint32_t id;
  uint32_t first_frame;  // in the frame pool
  uint32_t depth;
  double allocated_bytes;
  double allocated_count;
  double freed_bytes;
  double freed_count;
  bool changed;  // since the last snapshot
};

class StackTable {
 public:
  static constexpr uint32_t kNone = ~0u;
  static constexpr uint32_t kMaxStacks = 1u << 15;

  bool init();
  // The stack's id, added if new; kNone when the table or the frame pool is full.
  uint32_t intern(const CapturedStack& stack);
  StackEntry& entry(uint32_t id) { return entries_[slot_of_id_[id]]; }
  const uint64_t* frames(const StackEntry& entry) const { return frames_ + entry.first_frame; }
  uint32_t size() const { return count_; }

 private:
  static constexpr uint32_t kSlots = kMaxStacks * 2;  // a power of two, at most half full
  static constexpr uint32_t kFramePool = kMaxStacks * 24;

  StackEntry* entries_ = nullptr;    // kSlots, open addressing; depth 0 is empty
  uint32_t* slot_of_id_ = nullptr;   // kMaxStacks
  uint64_t* frames_ = nullptr;       // kFramePool
  uint32_t count_ = 0;
  uint32_t frames_used_ = 0;
};

}  // namespace canopy::heap
