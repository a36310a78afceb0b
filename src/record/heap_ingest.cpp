#include "record/heap_ingest.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/text.h"

namespace canopy::record {
namespace {

template <typename T>
bool read_array(std::span<const unsigned char> payload, std::vector<T>& out) {
  if (payload.size() % sizeof(T) != 0) {
    return false;
  }
  size_t old = out.size();
  out.resize(old + payload.size() / sizeof(T));
  std::memcpy(out.data() + old, payload.data(), payload.size());
  return true;
}

int64_t estimate(double value) { return std::isfinite(value) && value > 0 ? std::llround(value) : 0; }

const char* reason_name(uint32_t reason) {
  switch (static_cast<heap_wire::SnapshotReason>(reason)) {
    case heap_wire::SnapshotReason::kInterval:
      return "interval";
    case heap_wire::SnapshotReason::kPeak:
      return "peak";
    case heap_wire::SnapshotReason::kExit:
      return "exit";
    case heap_wire::SnapshotReason::kRequested:
      return "requested";
  }
  return nullptr;
}

// The recording's word for why a profiler stood aside; nullptr for a reason unknown here.
const char* unprofiled_reason(heap_wire::AsideReason reason) {
  switch (reason) {
    case heap_wire::AsideReason::kSanitizer:
      return store::kUnprofiledSanitizer;
    case heap_wire::AsideReason::kOwnMalloc:
      return store::kUnprofiledOwnMalloc;
  }
  return nullptr;
}

}  // namespace

void HeapIngest::opened(int connection, pid_t pid) {
  Image& image = images_[connection];
  image.connection = connection;
  image.pid = pid;
}

bool HeapIngest::message(int connection, heap_wire::MessageType type, std::span<const unsigned char> payload) {
  auto it = images_.find(connection);
  if (it == images_.end()) {
    return false;
  }
  Image& image = it->second;
  if (image.stood_aside) {
    return false;  // it said all it had to
  }
  if (!image.said_hello) {
    if (type == heap_wire::MessageType::kStandingAside) {
      return standing_aside(image, payload);
    }
    return type == heap_wire::MessageType::kHello && hello(image, payload);
  }
  switch (type) {
    case heap_wire::MessageType::kModules:
      return modules(image, payload);
    case heap_wire::MessageType::kStacks:
      return stacks(image, payload);
    case heap_wire::MessageType::kTotals:
      return read_array(payload, image.pending.totals);
    case heap_wire::MessageType::kSurvivors:
      return read_array(payload, image.pending.survivors);
    case heap_wire::MessageType::kFreed:
      return read_array(payload, image.pending.freed);
    case heap_wire::MessageType::kSnapshot:
      return snapshot(image, payload);
    case heap_wire::MessageType::kHello:          // once, first
    case heap_wire::MessageType::kStandingAside:  // instead of a Hello
    case heap_wire::MessageType::kControl:        // from a control client, never the library
      break;
  }
  return false;
}

bool HeapIngest::hello(Image& image, std::span<const unsigned char> payload) {
  heap_wire::Hello hello;
  if (payload.size() != sizeof hello) {
    return false;
  }
  std::memcpy(&hello, payload.data(), sizeof hello);
  if (hello.magic != heap_wire::kMagic || hello.version != heap_wire::kVersion || hello.rate_bytes < 0) {
    return false;
  }
  image.said_hello = true;
  image.loaded_ns = hello.start_monotonic_ns;
  // The kernel's word for who connected, not the message's: a process may claim any pid.
  image.row.pid = image.pid;
  image.row.process_id = process_id_of_(image.pid);
  image.row.started_ms = clock_.from_monotonic_ns(hello.start_monotonic_ns);
  image.row.rate_bytes = hello.rate_bytes;
  image.row.unwind = hello.unwind == static_cast<uint32_t>(heap_wire::UnwindMode::kDwarf) ? "dwarf" : "auto";
  image.row.id = writer_.add_heap_image(image.row);
  ++images_profiled_;
  return true;
}

bool HeapIngest::standing_aside(Image& image, std::span<const unsigned char> payload) {
  heap_wire::StandingAside aside;
  if (payload.size() != sizeof aside) {
    return false;
  }
  std::memcpy(&aside, payload.data(), sizeof aside);
  const char* reason = unprofiled_reason(static_cast<heap_wire::AsideReason>(aside.reason));
  if (aside.magic != heap_wire::kMagic || aside.version != heap_wire::kVersion || !reason) {
    return false;
  }
  image.stood_aside = true;
  // As for a Hello, the kernel's word for who connected.
  coverage_.on_stood_aside(process_id_of_(image.pid), image.pid, aside.start_monotonic_ns, reason);
  return true;
}

bool HeapIngest::modules(Image& image, std::span<const unsigned char> payload) {
  size_t offset = 0;
  while (offset < payload.size()) {
    heap_wire::ModuleRecord record;
    if (payload.size() - offset < sizeof record) {
      return false;
    }
    std::memcpy(&record, payload.data() + offset, sizeof record);
    offset += sizeof record;
    if (payload.size() - offset < static_cast<size_t>(record.build_id_bytes) + record.path_bytes ||
        record.begin > record.end) {
      return false;
    }
    std::string build_id = hex_of(payload.data() + offset, record.build_id_bytes);
    offset += record.build_id_bytes;
    std::string path(reinterpret_cast<const char*>(payload.data() + offset), record.path_bytes);
    offset += record.path_bytes;
    const int64_t module_id = shared_stacks_.module_id(path, build_id);
    auto same_place = std::find_if(image.modules.begin(), image.modules.end(),
                                   [&](const Module& m) { return m.begin == record.begin; });
    if (same_place != image.modules.end()) {
      *same_place = {record.begin, record.end, record.bias, module_id};  // unloaded, another loaded there
    } else {
      image.modules.push_back({record.begin, record.end, record.bias, module_id});
    }
  }
  std::sort(image.modules.begin(), image.modules.end(),
            [](const Module& a, const Module& b) { return a.begin < b.begin; });
  return true;
}

int64_t HeapIngest::frame_id(const Image& image, uint64_t pc) {
  auto after = std::upper_bound(image.modules.begin(), image.modules.end(), pc,
                                [](uint64_t value, const Module& m) { return value < m.begin; });
  if (after != image.modules.begin() && pc < std::prev(after)->end) {
    return shared_stacks_.frame_id(std::prev(after)->module_id, pc - std::prev(after)->bias);
  }
  return shared_stacks_.unmapped_frame_id(image.pid, pc);
}

bool HeapIngest::stacks(Image& image, std::span<const unsigned char> payload) {
  size_t offset = 0;
  while (offset < payload.size()) {
    heap_wire::StackRecord record;
    if (payload.size() - offset < sizeof record) {
      return false;
    }
    std::memcpy(&record, payload.data() + offset, sizeof record);
    offset += sizeof record;
    if (record.depth > heap_wire::kMaxFrames || payload.size() - offset < record.depth * sizeof(uint64_t)) {
      return false;
    }
    std::vector<int64_t> frames(record.depth);
    for (uint32_t i = 0; i < record.depth; ++i) {
      uint64_t pc;
      std::memcpy(&pc, payload.data() + offset + i * sizeof pc, sizeof pc);
      frames[i] = frame_id(image, pc);
    }
    offset += record.depth * sizeof(uint64_t);
    image.stacks[record.stack_id] = shared_stacks_.stack_id(frames);
  }
  return true;
}

bool HeapIngest::snapshot(Image& image, std::span<const unsigned char> payload) {
  heap_wire::SnapshotHeader header;
  if (payload.size() != sizeof header) {
    return false;
  }
  std::memcpy(&header, payload.data(), sizeof header);
  const char* reason = reason_name(header.reason);
  if (!reason) {
    return false;
  }
  PendingSnapshot pending = std::move(image.pending);
  image.pending = {};
  auto stack_of = [&](uint32_t library_id) -> std::optional<int64_t> {
    auto it = image.stacks.find(library_id);
    return it == image.stacks.end() ? std::nullopt : std::optional<int64_t>(it->second);
  };
  // Milliseconds must keep the order nanoseconds had: a block is alive at a snapshot
  // exactly when the snapshot held it (analyze::alive_at), yet a program's teardown,
  // held back while the library took a snapshot, frees within the same millisecond.
  // So each snapshot comes after the one before, and what it reports freed, after that
  // one too: a millisecond later at most where they shared one.
  const std::optional<int64_t> previous_ms = image.last_snapshot_ms;
  auto after_previous = [&](uint64_t monotonic_ns) {
    int64_t ms = clock_.from_monotonic_ns(monotonic_ns);
    return previous_ms ? std::max(ms, *previous_ms + 1) : ms;
  };
  const int64_t t_ms = after_previous(header.t_monotonic_ns);
  image.last_snapshot_ms = t_ms;
  if (!image.row.process_id) {
    image.row.process_id = process_id_of_(image.pid);
  }
  const int64_t in_use_bytes = estimate(header.in_use_bytes);
  int64_t snapshot_id = writer_.add_heap_snapshot({0, image.row.id, t_ms, reason, in_use_bytes,
                                                   estimate(header.peak_in_use_bytes),
                                                   static_cast<int64_t>(header.samples)});
  for (const heap_wire::StackTotals& totals : pending.totals) {
    auto stack_id = stack_of(totals.stack_id);
    if (!stack_id) {
      return false;  // the library sends a stack before naming it
    }
    writer_.add_heap_stack_totals({snapshot_id, *stack_id, estimate(totals.allocated_bytes),
                                   estimate(totals.allocated_count), estimate(totals.freed_bytes),
                                   estimate(totals.freed_count)});
  }
  for (const heap_wire::Survivor& survivor : pending.survivors) {
    auto stack_id = stack_of(survivor.stack_id);
    if (!stack_id || !(survivor.probability > 0 && survivor.probability <= 1)) {
      return false;
    }
    image.allocations[survivor.allocation_id] = writer_.add_heap_allocation(
        {0, image.row.id, *stack_id, static_cast<int64_t>(survivor.size_bytes), survivor.probability,
         clock_.from_monotonic_ns(survivor.born_monotonic_ns), std::nullopt});
  }
  for (const heap_wire::Freed& freed : pending.freed) {
    auto it = image.allocations.find(freed.allocation_id);
    if (it != image.allocations.end()) {
      writer_.set_heap_allocation_freed(it->second, after_previous(freed.freed_monotonic_ns));
      image.allocations.erase(it);
    }
  }
  image.row.samples = static_cast<int64_t>(header.samples);
  image.row.samples_dropped = static_cast<int64_t>(header.samples_dropped);
  image.row.ended_ms = t_ms;
  image.exited = static_cast<heap_wire::SnapshotReason>(header.reason) == heap_wire::SnapshotReason::kExit;
  if (image.row.process_id) {  // else a process the sampler has not met yet: its next snapshot
    in_use_.reported(*image.row.process_id, image.connection, in_use_bytes);
  }
  return true;
}

void HeapIngest::closed(int connection) {
  auto it = images_.find(connection);
  if (it == images_.end()) {
    return;
  }
  Image& image = it->second;
  if (image.said_hello) {
    if (image.row.process_id) {
      in_use_.ended(*image.row.process_id, image.connection);
    }
    if (!image.row.process_id) {
      image.row.process_id = process_id_of_(image.pid);
    }
    if (!image.exited) {
      image.row.ended_ms = clock_.now_ms();
    }
    image.row.end = image.exited ? "exit" : "lost";
    writer_.update_heap_image_end(image.row);
    coverage_.on_image(image.row.process_id, image.pid, image.loaded_ns);
  }
  images_.erase(it);
}

}  // namespace canopy::record
