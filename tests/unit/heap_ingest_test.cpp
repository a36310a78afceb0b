// What the recorder makes of the heap library's messages (record/heap_ingest.h): here,
// the times it writes, in milliseconds, of what the library timed in nanoseconds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "analyze/heap_history.h"
#include "heap/wire_format.h"
#include "probe/system.h"
#include "record/heap_coverage.h"
#include "record/heap_ingest.h"
#include "record/profile_stacks.h"
#include "store/reader.h"
#include "store/writer.h"
#include "support/temp_dir.h"

namespace canopy::record {
namespace {

using canopy::testing::TempDir;
namespace wire = heap_wire;

template <typename Message>
std::span<const unsigned char> bytes_of(const Message& message) {
  return {reinterpret_cast<const unsigned char*>(&message), sizeof message};
}

// The first nanosecond of the clock's next millisecond after `from`.
uint64_t next_millisecond(const RecordingClock& clock, uint64_t from) {
  const int64_t ms = clock.from_monotonic_ns(from);
  uint64_t low = from;
  uint64_t high = from + 1'000'000;  // a millisecond on: the next one
  while (high - low > 1) {
    uint64_t middle = low + (high - low) / 2;
    (clock.from_monotonic_ns(middle) > ms ? high : low) = middle;
  }
  return high;
}

// A program's teardown, held back while the library took a snapshot's content, frees
// a sampled block at once after it, within the same millisecond; the library's exit
// snapshot follows within that millisecond too. The block was alive at the first
// snapshot, which held it, and freed at the exit snapshot: so the recording must say.
TEST(HeapIngestTimes, WhatASnapshotHeldIsAliveAtItThoughFreedInTheSameMillisecond) {
  TempDir dir;
  std::string path = dir.file("ingest.canopy");
  {
    auto writer = store::Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    writer->set_meta({.start_ms = 1'700'000'000'000});
    ASSERT_TRUE(writer->enable_heap());
    RecordingClock clock;
    ProfileStacks stacks(*writer);
    HeapCoverage coverage("libcanopy-heap.so", dir.file("heap.sock"), 4096);
    HeapIngest ingest(*writer, stacks, clock, [](pid_t) { return std::optional<int64_t>(); }, coverage);

    // A millisecond of the clock a little ahead, and three moments within it.
    const uint64_t boundary = next_millisecond(clock, probe::now_monotonic_ns() + 5'000'000);
    const uint64_t content_taken = boundary + 200'000;
    const uint64_t teardown_frees = boundary + 600'000;
    const uint64_t exit_snapshot = boundary + 900'000;

    const int connection = 7;
    ingest.opened(connection, ::getpid());
    wire::Hello hello{wire::kMagic, wire::kVersion, ::getpid(), 0, 4096, boundary - 50'000'000};
    ASSERT_TRUE(ingest.message(connection, wire::MessageType::kHello, bytes_of(hello)));
    struct {
      wire::StackRecord record{0, 1};
      uint64_t pc = 0x1234;
    } stack;
    ASSERT_TRUE(ingest.message(connection, wire::MessageType::kStacks, bytes_of(stack)));
    wire::Survivor survivor{1, 0, 0, 8192, 1.0, boundary - 10'000'000};
    ASSERT_TRUE(ingest.message(connection, wire::MessageType::kSurvivors, bytes_of(survivor)));
    wire::SnapshotHeader held{content_taken, static_cast<uint32_t>(wire::SnapshotReason::kPeak), 0, 8192, 8192, 1, 0};
    ASSERT_TRUE(ingest.message(connection, wire::MessageType::kSnapshot, bytes_of(held)));
    wire::Freed freed{1, teardown_frees};
    ASSERT_TRUE(ingest.message(connection, wire::MessageType::kFreed, bytes_of(freed)));
    wire::SnapshotHeader exited{exit_snapshot, static_cast<uint32_t>(wire::SnapshotReason::kExit), 0, 0, 8192, 1, 0};
    ASSERT_TRUE(ingest.message(connection, wire::MessageType::kSnapshot, bytes_of(exited)));
    ingest.closed(connection);
    ASSERT_TRUE(writer->finish());
  }
  auto reader = store::Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  auto profile = reader->heap_profile();
  ASSERT_TRUE(profile) << profile.error().message;
  ASSERT_EQ(profile->snapshots.size(), 2u);
  ASSERT_EQ(profile->allocations.size(), 1u);
  const int64_t held_ms = profile->snapshots[0].t_ms;
  const int64_t exit_ms = profile->snapshots[1].t_ms;
  EXPECT_EQ(exit_ms, held_ms + 1) << "the exit snapshot comes after the one before it";
  const store::HeapAllocationRow& block = profile->allocations[0];
  EXPECT_TRUE(analyze::alive_at(block, held_ms)) << "freed at " << block.freed_ms.value_or(-1);
  EXPECT_FALSE(analyze::alive_at(block, exit_ms)) << "freed at " << block.freed_ms.value_or(-1);
}

}  // namespace
}  // namespace canopy::record
