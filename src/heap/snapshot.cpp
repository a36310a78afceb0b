#include "heap/snapshot.h"

#include <link.h>
#include <pthread.h>
#include <unistd.h>

#include <cstring>

#include "heap/pages.h"
#include "heap/profile.h"

namespace canopy::heap {
namespace {

constexpr size_t kStagingBytes = 256 * 1024;  // of stacks or modules, per message
constexpr uint32_t kMaxSurvivors = 1u << 16;

class ProfileLock {
 public:
  ProfileLock() { pthread_mutex_lock(&profile.lock); }
  ~ProfileLock() { pthread_mutex_unlock(&profile.lock); }
};

struct ModuleBatch {
  Channel* channel;
  unsigned char* staging;
  size_t used;
  unsigned long long adds;
  unsigned long long subs;
};

void flush_modules(ModuleBatch& batch) {
  if (batch.used > 0) {
    batch.channel->send(heap_wire::MessageType::kModules, batch.staging, batch.used);
    batch.used = 0;
  }
}

// The GNU build-id in a PT_NOTE segment, as the loader mapped it.
const unsigned char* build_id_of(const dl_phdr_info& info, uint32_t& bytes) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info.dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) {
      continue;
    }
    auto cursor = info.dlpi_addr + segment.p_vaddr;
    auto end = cursor + segment.p_memsz;
    while (cursor + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(cursor);
      uintptr_t name = cursor + sizeof(ElfW(Nhdr));
      uintptr_t descriptor = name + ((note->n_namesz + 3) & ~3u);
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          std::memcmp(reinterpret_cast<const void*>(name), "GNU", 4) == 0) {
        bytes = note->n_descsz;
        return reinterpret_cast<const unsigned char*>(descriptor);
      }
      cursor = descriptor + ((note->n_descsz + 3) & ~3u);
    }
  }
  bytes = 0;
  return nullptr;
}

int read_load_counts(dl_phdr_info* info, size_t, void* data) {
  auto* counts = static_cast<unsigned long long*>(data);
  counts[0] = info->dlpi_adds;
  counts[1] = info->dlpi_subs;
  return 1;  // the counts are the same in every object's info
}

int add_module(dl_phdr_info* info, size_t, void* data) {
  auto& batch = *static_cast<ModuleBatch*>(data);
  batch.adds = info->dlpi_adds;
  batch.subs = info->dlpi_subs;
  heap_wire::ModuleRecord record{info->dlpi_addr, ~0ULL, 0, 0, 0};
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type == PT_LOAD) {
      uint64_t begin = info->dlpi_addr + segment.p_vaddr;
      record.begin = begin < record.begin ? begin : record.begin;
      record.end = begin + segment.p_memsz > record.end ? begin + segment.p_memsz : record.end;
    }
  }
  if (record.end == 0) {
    return 0;
  }
  const unsigned char* build_id = build_id_of(*info, record.build_id_bytes);
  // The main program's name is empty here; its path is the one it was run as.
  static char exe_path[4096];
  const char* path = info->dlpi_name;
  if (!path || !*path) {
    ssize_t length = ::readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    exe_path[length > 0 ? length : 0] = '\0';
    path = exe_path;
  }
  record.path_bytes = static_cast<uint32_t>(std::strlen(path));
  size_t need = sizeof record + record.build_id_bytes + record.path_bytes;
  if (need > kStagingBytes) {
    return 0;
  }
  if (batch.used + need > kStagingBytes) {
    flush_modules(batch);
  }
  unsigned char* out = batch.staging + batch.used;
  std::memcpy(out, &record, sizeof record);
  std::memcpy(out + sizeof record, build_id, record.build_id_bytes);
  std::memcpy(out + sizeof record + record.build_id_bytes, path, record.path_bytes);
  batch.used += need;
  return 0;
}

}  // namespace

bool SnapshotSender::init() {
  stacks_staging_ = map_zeroed_array<unsigned char>(kStagingBytes);
  totals_ = map_zeroed_array<heap_wire::StackTotals>(StackTable::kMaxStacks);
  survivors_ = map_zeroed_array<heap_wire::Survivor>(kMaxSurvivors);
  freed_ = map_zeroed_array<heap_wire::Freed>(kFreedCapacity);
  return stacks_staging_ && totals_ && survivors_ && freed_;
}

void SnapshotSender::restart_in_child() {
  stacks_sent_ = 0;
  modules_adds_sent_ = ~0ULL;
  modules_subs_sent_ = ~0ULL;
  ProfileLock locked;
  if (!profile.ready) {
    return;
  }
  for (uint32_t id = 0; id < profile.stacks.size(); ++id) {
    StackEntry& entry = profile.stacks.entry(id);
    entry.allocated_bytes -= entry.freed_bytes;
    entry.allocated_count -= entry.freed_count;
    entry.freed_bytes = 0;
    entry.freed_count = 0;
    entry.changed = true;
  }
  profile.live.mark_all_unreported();
  profile.born_overflowed = true;  // the inherited survivors are all new to this connection
  profile.freed_count = 0;
  profile.peak_in_use_bytes = profile.in_use_bytes;
  profile.peak_reported_bytes = 0;
}

void SnapshotSender::send_modules(Channel& channel) {
  ModuleBatch batch{&channel, stacks_staging_, 0, 0, 0};
  dl_iterate_phdr(add_module, &batch);
  flush_modules(batch);
  modules_adds_sent_ = batch.adds;
  modules_subs_sent_ = batch.subs;
}

void SnapshotSender::send_modules_if_changed(Channel& channel) {
  unsigned long long counts[2] = {0, 0};
  dl_iterate_phdr(read_load_counts, counts);
  if (counts[0] != modules_adds_sent_ || counts[1] != modules_subs_sent_) {
    send_modules(channel);
  }
}

void SnapshotSender::copy_out(heap_wire::SnapshotHeader& header) {
  ProfileLock locked;
  stacks_known_ = profile.stacks.size();
  totals_count_ = 0;
  for (uint32_t id = 0; id < stacks_known_; ++id) {
    StackEntry& entry = profile.stacks.entry(id);
    if (entry.changed) {
      entry.changed = false;
      totals_[totals_count_++] = {id, 0, entry.allocated_bytes, entry.allocated_count, entry.freed_bytes,
                                  entry.freed_count};
    }
  }
  survivors_count_ = 0;
  auto add_survivor = [&](LiveAllocation& allocation) {
    if (allocation.reported || survivors_count_ == kMaxSurvivors) {
      return survivors_count_ < kMaxSurvivors;
    }
    allocation.reported = true;
    survivors_[survivors_count_++] = {allocation.allocation_id, allocation.stack_id, 0, allocation.size_bytes,
                                      allocation.probability, allocation.born_monotonic_ns};
    return true;
  };
  if (profile.born_overflowed) {
    profile.born_overflowed = !profile.live.for_each(add_survivor);
  } else {
    for (uint32_t i = 0; i < profile.born_count; ++i) {
      if (LiveAllocation* allocation = profile.live.find(profile.born_since_snapshot[i])) {
        add_survivor(*allocation);
      }
    }
  }
  profile.born_count = 0;
  freed_count_ = profile.freed_count;
  std::memcpy(freed_, profile.freed_since_snapshot, freed_count_ * sizeof(heap_wire::Freed));
  profile.freed_count = 0;
  // The moment the content was taken, under the lock: a block freed once it is let go
  // (a program's teardown, which waited for it) is the next snapshot's, and later.
  header.t_monotonic_ns = monotonic_ns();
  header.in_use_bytes = profile.in_use_bytes;
  header.peak_in_use_bytes = profile.peak_in_use_bytes;
  header.samples = profile.samples;
  header.samples_dropped = profile.samples_dropped;
  profile.peak_reported_bytes = profile.peak_in_use_bytes;
}

void SnapshotSender::send_stacks(Channel& channel, uint32_t up_to) {
  // A stack's entry and frames are written once, before its id is handed out under
  // the lock copy_out took: they are read here without it.
  size_t used = 0;
  for (; stacks_sent_ < up_to; ++stacks_sent_) {
    const StackEntry& entry = profile.stacks.entry(stacks_sent_);
    size_t need = sizeof(heap_wire::StackRecord) + entry.depth * sizeof(uint64_t);
    if (used + need > kStagingBytes) {
      channel.send(heap_wire::MessageType::kStacks, stacks_staging_, used);
      used = 0;
    }
    heap_wire::StackRecord record{stacks_sent_, entry.depth};
    std::memcpy(stacks_staging_ + used, &record, sizeof record);
    std::memcpy(stacks_staging_ + used + sizeof record, profile.stacks.frames(entry), entry.depth * sizeof(uint64_t));
    used += need;
  }
  if (used > 0) {
    channel.send(heap_wire::MessageType::kStacks, stacks_staging_, used);
  }
}

void SnapshotSender::send(Channel& channel, heap_wire::SnapshotReason reason) {
  if (!channel.connected() || !profile.ready) {
    heap_wire::SnapshotHeader empty{monotonic_ns(), static_cast<uint32_t>(reason), 0, 0, 0, 0, 0};
    channel.send(heap_wire::MessageType::kSnapshot, &empty, sizeof empty);
    return;
  }
  heap_wire::SnapshotHeader header{};
  copy_out(header);
  send_modules_if_changed(channel);
  send_stacks(channel, stacks_known_);
  auto send_array = [&](heap_wire::MessageType type, const void* items, size_t bytes) {
    if (bytes > 0) {
      channel.send(type, items, bytes);
    }
  };
  send_array(heap_wire::MessageType::kTotals, totals_, totals_count_ * sizeof(heap_wire::StackTotals));
  send_array(heap_wire::MessageType::kSurvivors, survivors_, survivors_count_ * sizeof(heap_wire::Survivor));
  send_array(heap_wire::MessageType::kFreed, freed_, freed_count_ * sizeof(heap_wire::Freed));
  header.reason = static_cast<uint32_t>(reason);
  channel.send(heap_wire::MessageType::kSnapshot, &header, sizeof header);
}

}  // namespace canopy::heap
