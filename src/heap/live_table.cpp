#include "heap/live_table.h"

#include <sys/mman.h>

#include <bit>

#include "heap/pages.h"

namespace canopy::heap {

namespace {

// Sixteen buckets a slot keeps false hits of the filter rare while the table fills; the
// largest filter is a mebibyte, enough for the table's largest load.
constexpr uint32_t kBucketsPerSlot = 16;
constexpr uint32_t kMaxFilterBuckets = 1u << 20;

uint32_t shift_for(uint32_t power_of_two) { return 64 - static_cast<uint32_t>(std::countr_zero(power_of_two)); }

}  // namespace

bool LiveTable::init() {
  slots_ = map_zeroed_array<LiveAllocation>(kInitialSlots);
  if (!slots_) {
    return false;
  }
  capacity_ = kInitialSlots;
  slot_shift_ = shift_for(capacity_);
  return publish_filter_for(capacity_);
}

// A free() on another thread may still be reading the filter this replaces, so the old
// one stays mapped; the filters replaced add up to less than the last one.
bool LiveTable::publish_filter_for(uint32_t capacity) {
  uint32_t buckets = capacity * kBucketsPerSlot < kMaxFilterBuckets ? capacity * kBucketsPerSlot : kMaxFilterBuckets;
  if (filter_ && filter_->bucket_shift == shift_for(buckets)) {
    return true;
  }
  auto* filter = reinterpret_cast<AddressFilter*>(map_zeroed_array<unsigned char>(sizeof(AddressFilter) + buckets));
  if (!filter) {
    return false;
  }
  filter->bucket_shift = shift_for(buckets);
  unsigned char* counts = filter->counts();
  for (uint32_t slot = 0; slot < capacity_; ++slot) {
    if (slots_[slot].address != 0) {
      unsigned char& counter = counts[filter->bucket(reinterpret_cast<const void*>(slots_[slot].address))];
      counter = counter == 255 ? 255 : counter + 1;
    }
  }
  __atomic_store_n(&filter_, filter, __ATOMIC_RELEASE);
  return true;
}

// Twice the slots, each entry moved to its home in the larger table. Only the lock's
// holders read the slots, so the old array goes back to the kernel at once.
bool LiveTable::grow() {
  uint32_t capacity = capacity_ * 2;
  LiveAllocation* slots = map_zeroed_array<LiveAllocation>(capacity);
  if (!slots) {
    return false;
  }
  LiveAllocation* old_slots = slots_;
  uint32_t old_capacity = capacity_;
  slots_ = slots;
  capacity_ = capacity;
  slot_shift_ = shift_for(capacity);
  for (uint32_t old_slot = 0; old_slot < old_capacity; ++old_slot) {
    if (old_slots[old_slot].address != 0) {
      uint32_t slot = home_slot(old_slots[old_slot].address);
      while (slots_[slot].address != 0) {
        slot = next_slot(slot);
      }
      slots_[slot] = old_slots[old_slot];
    }
  }
  ::munmap(old_slots, old_capacity * sizeof(LiveAllocation));
  // Without a larger filter the table still works: the old one only errs towards a
  // search, never towards a miss.
  publish_filter_for(capacity_);
  return true;
}

void LiveTable::count_in_filter(const void* address) {
  unsigned char& counter = filter_->counts()[filter_->bucket(address)];
  uint8_t count = __atomic_load_n(&counter, __ATOMIC_RELAXED);
  if (count != 255) {
    __atomic_store_n(&counter, static_cast<unsigned char>(count + 1), __ATOMIC_RELAXED);
  }
}

bool LiveTable::insert(const LiveAllocation& allocation) {
  if (count_ == kMaxLive) {
    return false;
  }
  if (count_ >= capacity_ / 4 * 3 && !grow()) {
    return false;
  }
  uint32_t slot = home_slot(allocation.address);
  while (slots_[slot].address != 0) {
    slot = next_slot(slot);
  }
  slots_[slot] = allocation;
  ++count_;
  count_in_filter(reinterpret_cast<const void*>(allocation.address));
  return true;
}

LiveAllocation* LiveTable::find(uint64_t address) {
  for (uint32_t slot = home_slot(address); slots_[slot].address != 0; slot = next_slot(slot)) {
    if (slots_[slot].address == address) {
      return &slots_[slot];
    }
  }
  return nullptr;
}

bool LiveTable::remove(const void* address, LiveAllocation& removed) {
  LiveAllocation* found = find(reinterpret_cast<uint64_t>(address));
  if (!found) {
    return false;
  }
  removed = *found;
  unsigned char& counter = filter_->counts()[filter_->bucket(address)];
  uint8_t count = __atomic_load_n(&counter, __ATOMIC_RELAXED);
  if (count != 255) {
    __atomic_store_n(&counter, static_cast<unsigned char>(count - 1), __ATOMIC_RELAXED);
  }
  // Backward-shift deletion (linear probing without tombstones): pull each later entry
  // of the run into the hole when its home slot does not lie between hole and entry.
  auto hole = static_cast<uint32_t>(found - slots_);
  for (uint32_t next = next_slot(hole); slots_[next].address != 0; next = next_slot(next)) {
    uint32_t home = home_slot(slots_[next].address);
    bool home_in_between = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
    if (!home_in_between) {
      slots_[hole] = slots_[next];
      hole = next;
    }
  }
  slots_[hole] = LiveAllocation{};
  --count_;
  return true;
}

}  // namespace canopy::heap
