#include "heap/stack_table.h"

#include <cstring>

#include "heap/pages.h"

namespace canopy::heap {
namespace {

uint64_t hash_pcs(const uint64_t* pcs, int depth) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (int i = 0; i < depth; ++i) {
    hash = (hash ^ pcs[i]) * 0x100000001b3ULL;
    hash ^= hash >> 29;
  }
  return hash | 1;  // never 0, so that a hash alone tells a used slot
}

}  // namespace

bool StackTable::init() {
  entries_ = map_zeroed_array<StackEntry>(kSlots);
  slot_of_id_ = map_zeroed_array<uint32_t>(kMaxStacks);
  frames_ = map_zeroed_array<uint64_t>(kFramePool);
  return entries_ && slot_of_id_ && frames_;
}

uint32_t StackTable::intern(const CapturedStack& stack) {
  uint64_t hash = hash_pcs(stack.pcs, stack.depth);
  for (uint32_t slot = static_cast<uint32_t>(hash) & (kSlots - 1);; slot = (slot + 1) & (kSlots - 1)) {
    StackEntry& entry = entries_[slot];
    if (entry.hash == 0) {
      auto depth = static_cast<uint32_t>(stack.depth);
      if (count_ == kMaxStacks || frames_used_ + depth > kFramePool) {
        return kNone;
      }
      entry.hash = hash;
      entry.id = count_;
      entry.first_frame = frames_used_;
      entry.depth = depth;
      std::memcpy(frames_ + frames_used_, stack.pcs, depth * sizeof(uint64_t));
      frames_used_ += depth;
      slot_of_id_[count_] = slot;
      return count_++;
    }
    if (entry.hash == hash && entry.depth == static_cast<uint32_t>(stack.depth) &&
        std::memcmp(frames_ + entry.first_frame, stack.pcs, entry.depth * sizeof(uint64_t)) == 0) {
      return entry.id;
    }
  }
}

}  // namespace canopy::heap
