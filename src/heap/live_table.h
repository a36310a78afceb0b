// The sampled allocations still alive, by address. Every free() asks whether its
// block is one of them; almost always it is not, and a counting filter (a byte per
// bucket of addresses, read without the lock) answers that with one load. Only a
// hit in the filter takes the profile's lock and searches the table.
//
// Both start small and double as samples accumulate, so that a process with few live
// samples touches a few pages, not megabytes of table, and its filter stays in cache.
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

// Counts per bucket of addresses; 255 sticks (it only costs a search). Its size never
// changes once published: a larger table publishes a new filter instead.
struct AddressFilter {
  uint32_t bucket_shift;  // bucket = hash >> bucket_shift

  unsigned char* counts() { return reinterpret_cast<unsigned char*>(this + 1); }
  const unsigned char* counts() const { return reinterpret_cast<const unsigned char*>(this + 1); }
  uint32_t bucket(const void* address) const {
    auto key = reinterpret_cast<uint64_t>(address) >> 4;  // blocks are 16-byte aligned
    return static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ULL) >> bucket_shift);
  }
};

class LiveTable {
 public:
  static constexpr uint32_t kInitialSlots = 1u << 12;
  static constexpr uint32_t kMaxSlots = 1u << 18;
  static constexpr uint32_t kMaxLive = kMaxSlots / 4 * 3;

  bool init();

  // Without the lock: false means `address` is surely not in the table. A filter read
  // here is the one published before the insert of any block this thread can free.
  bool may_hold(const void* address) const {
    const AddressFilter* filter = __atomic_load_n(&filter_, __ATOMIC_ACQUIRE);
    return filter && __atomic_load_n(&filter->counts()[filter->bucket(address)], __ATOMIC_RELAXED) != 0;
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
    for (uint32_t slot = 0; slot < capacity_; ++slot) {
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
  uint32_t capacity() const { return capacity_; }

 private:
  uint32_t home_slot(uint64_t address) const {
    return static_cast<uint32_t>(((address >> 4) * 0xD6E8FEB86659FD93ULL) >> slot_shift_);
  }
  uint32_t next_slot(uint32_t slot) const { return (slot + 1) & (capacity_ - 1); }
  bool grow();
  bool publish_filter_for(uint32_t capacity);
  void count_in_filter(const void* address);

  LiveAllocation* slots_ = nullptr;
  uint32_t capacity_ = 0;  // a power of two
  uint32_t slot_shift_ = 64;
  uint32_t count_ = 0;
  AddressFilter* filter_ = nullptr;
};

}  // namespace canopy::heap
