// record --heap as the recorder runs it: where libcanopy-heap.so is, what the command's
// environment needs to load it into every process of the tree, the socket the
// library reports to, and the ingest of what it says into the recording.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "record/heap_coverage.h"
#include "record/heap_ingest.h"
#include "record/heap_listener.h"
#include "record/options.h"

namespace canopy::record {

inline constexpr const char* kHeapLibraryFile = "libcanopy-heap.so";
// Where to find the library instead of beside the binary (packagers, tests).
inline constexpr const char* kHeapLibraryVariable = "CANOPY_HEAP_LIBRARY";

class HeapProfiling {
 public:
  // Before the command is forked: the library found, the socket listening in
  // `directory` (the recording's private one).
  static Result<HeapProfiling> prepare(const RecordOptions& options, const std::string& directory);

  // NAME=value for the command: LD_PRELOAD (the library in front of any the user set),
  // the library's settings, and PYTHONMALLOC=malloc unless the user set it.
  std::vector<std::string> environment() const;

  // To be told of every program of the tree (SamplerOptions::programs), from before the
  // command runs to the end.
  ProgramWatch* programs() { return &coverage_; }
  // Once the recording exists, before the command runs.
  void start_ingest(store::Writer& writer, ProfileStacks& stacks, const RecordingClock& clock,
                    HeapIngest::ProcessIdOf process_id_of);
  int poll_fd() const { return listener_.poll_fd(); }
  void read_available();
  // After the tree has ended: what is still on its way, and the end of every image.
  void finish();
  // After finish() and the sampler's last look at the tree: each process whose last
  // program left no image, and why (heap_coverage.h).
  void write_unprofiled(store::Writer& writer) const;

  int64_t images_profiled() const { return ingest_ ? ingest_->images_profiled() : 0; }
  // Each process's latest heap in use, for the live figures; nullptr before the ingest.
  const HeapInUseTable* in_use() const { return ingest_ ? &ingest_->in_use() : nullptr; }

 private:
  HeapProfiling(HeapListener listener, std::string library, const RecordOptions& options);
  HeapListener::Handler handler();
  // `canopy heap dump|on|off PID`: passed on to that process's library, and answered.
  void forward_control(int connection, std::span<const unsigned char> payload);

  HeapListener listener_;
  std::string library_;
  int64_t rate_bytes_;
  int64_t interval_ms_;
  HeapCoverage coverage_;
  std::optional<HeapIngest> ingest_;
};

}  // namespace canopy::record
