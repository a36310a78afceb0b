// The sampled allocations still alive, by address. Every free() asks whether its
// block is one of them; almost always it is not, and a counting filter (a byte per
// bucket of addresses, read without the lock) answers that with one load. Only a
// hit in the filter takes the profile's lock and searches the table.
#pragma once

#include <cstdint>

namespace canopy::heap {

struct LiveAllocation {
  uint64_t address;  // 0: empty slot
  uint64_t allocation_id;
  uint64_t size_bytes;
  double probability;
  uint64_t born_monotonic_ns;
  uint32_t stack_id;
  bool reported;  // sent to the recorder as a survivor of a snapshot
};

class LiveTable {
 public:
  bool init();

  // Without the lock: false means `address` is surely not in the table.
  bool may_hold(const void* address) const {
    return filter_ && __atomic_load_n(&filter_[filter_bucket(address)], __ATOMIC_RELAXED) != 0;
  }

  // With the lock held. False when the table is full (the sample is dropped).
  bool insert(const LiveAllocation& allocation);
  // With the lock held: removes and returns the allocation at `address`, if any.
  bool remove(const void* address, LiveAllocation& removed);
  // With the lock held: the allocation at `address`, or null.
  LiveAllocation* find(uint64_t address);
  // With the lock held: calls visit(allocation&) for each until it returns false;
  // true when it saw them all.
  template <typename Visit>
  bool for_each(Visit visit) {
    for (uint32_t slot = 0; slot < kSlots; ++slot) {
      if (slots_[slot].address != 0 && !visit(slots_[slot])) {
        return false;
      }
    }
    return true;
  }
  void mark_all_unreported() {
    for_each([](LiveAllocation& allocation) {
      allocation.reported = false;
      return true;
    });
  }

 private:
  static constexpr uint32_t kSlots = 1u << 18;
  static constexpr uint32_t kMaxLive = kSlots / 4 * 3;
  static constexpr uint32_t kFilterBuckets = 1u << 20;

  static uint32_t filter_bucket(const void* address) {
    auto key = reinterpret_cast<uint64_t>(address) >> 4;  // blocks are 16-byte aligned
    return static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ULL) >> 44);
  }
  static uint32_t home_slot(uint64_t address) {
    return static_cast<uint32_t>(((address >> 4) * 0xD6E8FEB86659FD93ULL) >> 46);
  }

  LiveAllocation* slots_ = nullptr;
  unsigned char* filter_ = nullptr;  // counts per bucket; 255 sticks (only costs a search)
  uint32_t count_ = 0;
};

}  // namespace canopy::heap
