// Turns what libcanopy-heap.so sends into the recording's heap rows: a process image
// per connection, its stacks resolved to frames of loaded objects (so that the same
// code has the same frame in every process), and each snapshot written when its
// closing header arrives. Times move from the library's monotonic clock to the
// recording's. Each open connection's latest heap in use is also kept for the live
// figures (heap_in_use.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "heap/wire_format.h"
#include "record/heap_coverage.h"
#include "record/heap_in_use.h"
#include "record/profile_stacks.h"
#include "record/recording_clock.h"
#include "store/heap_rows.h"
#include "store/writer.h"

namespace canopy::record {

class HeapIngest {
 public:
  using ProcessIdOf = std::function<std::optional<int64_t>(pid_t)>;
  // `coverage` hears of every image as it ends; `stacks` are shared with the CPU profile.
  HeapIngest(store::Writer& writer, ProfileStacks& stacks, const RecordingClock& clock, ProcessIdOf process_id_of,
             HeapCoverage& coverage)
      : writer_(writer),
        shared_stacks_(stacks),
        clock_(clock),
        process_id_of_(std::move(process_id_of)),
        coverage_(coverage) {}

  void opened(int connection, pid_t pid);
  // False for a message that breaks the format: the connection is then dropped.
  bool message(int connection, heap_wire::MessageType type, std::span<const unsigned char> payload);
  void closed(int connection);

  int64_t images_profiled() const { return images_profiled_; }
  // Each process's heap in use at its latest snapshot, while its connection is open.
  const HeapInUseTable& in_use() const { return in_use_; }

 private:
  struct Module {
    uint64_t begin;
    uint64_t end;
    uint64_t bias;
    int64_t module_id;
  };
  struct PendingSnapshot {
    std::vector<heap_wire::StackTotals> totals;
    std::vector<heap_wire::Survivor> survivors;
    std::vector<heap_wire::Freed> freed;
  };
  struct Image {
    int connection = 0;
    pid_t pid = 0;
    store::HeapImageRow row;
    bool said_hello = false;
    bool stood_aside = false;  // it said it would send no profile (StandingAside)
    uint64_t loaded_ns = 0;  // the Hello's: when the library started in this image
    bool exited = false;  // its last snapshot was the one taken at exit
    std::optional<int64_t> last_snapshot_ms;  // as written
    std::vector<Module> modules;  // by begin
    std::unordered_map<uint32_t, int64_t> stacks;        // the library's id to ours
    std::unordered_map<uint64_t, int64_t> allocations;   // likewise
    PendingSnapshot pending;
  };

  bool hello(Image& image, std::span<const unsigned char> payload);
  bool standing_aside(Image& image, std::span<const unsigned char> payload);
  bool modules(Image& image, std::span<const unsigned char> payload);
  bool stacks(Image& image, std::span<const unsigned char> payload);
  bool snapshot(Image& image, std::span<const unsigned char> payload);
  int64_t frame_id(const Image& image, uint64_t pc);

  store::Writer& writer_;
  ProfileStacks& shared_stacks_;
  const RecordingClock& clock_;
  ProcessIdOf process_id_of_;
  HeapCoverage& coverage_;
  std::unordered_map<int, Image> images_;  // by connection
  int64_t images_profiled_ = 0;
  HeapInUseTable in_use_;
};

}  // namespace canopy::record
