#include "heap/live_table.h"

#include "heap/pages.h"

namespace canopy::heap {

static_assert((1u << (64 - 44)) == (1u << 20), "filter_bucket spans the filter");
static_assert((1u << (64 - 46)) == (1u << 18), "home_slot spans the table");

bool LiveTable::init() {
  slots_ = map_zeroed_array<LiveAllocation>(kSlots);
  unsigned char* filter = map_zeroed_array<unsigned char>(kFilterBuckets);
  if (!slots_ || !filter) {
    return false;
  }
  __atomic_store_n(&filter_, filter, __ATOMIC_RELEASE);
  return true;
}

bool LiveTable::insert(const LiveAllocation& allocation) {
  if (count_ == kMaxLive) {
    return false;
  }
  uint32_t slot = home_slot(allocation.address);
  while (slots_[slot].address != 0) {
    slot = (slot + 1) & (kSlots - 1);
  }
  slots_[slot] = allocation;
  ++count_;
  unsigned char& counter = filter_[filter_bucket(reinterpret_cast<const void*>(allocation.address))];
  if (__atomic_load_n(&counter, __ATOMIC_RELAXED) != 255) {
    __atomic_store_n(&counter, counter + 1, __ATOMIC_RELAXED);
  }
  return true;
}

LiveAllocation* LiveTable::find(uint64_t address) {
  for (uint32_t slot = home_slot(address); slots_[slot].address != 0; slot = (slot + 1) & (kSlots - 1)) {
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
  unsigned char& counter = filter_[filter_bucket(address)];
  uint8_t count = __atomic_load_n(&counter, __ATOMIC_RELAXED);
  if (count != 255) {
    __atomic_store_n(&counter, static_cast<unsigned char>(count - 1), __ATOMIC_RELAXED);
  }
  // Backward-shift deletion (linear probing without tombstones): pull each later entry
  // of the run into the hole when its home slot does not lie between hole and entry.
  auto hole = static_cast<uint32_t>(found - slots_);
  for (uint32_t next = (hole + 1) & (kSlots - 1); slots_[next].address != 0; next = (next + 1) & (kSlots - 1)) {
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
