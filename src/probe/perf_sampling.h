// CPU sampling with perf_event_open: one software cpu-clock event per CPU on a task,
// inherited by every thread and process the task starts afterwards, each event with
// its own ring buffer (the kernel refuses to map an inherited per-task event that is
// not bound to a CPU: all children would write to one buffer). The records come out
// as bytes for perf_records.h. Opening is the only thing that can be refused; what
// the kernel said and why (perf_event_paranoid) comes back as the error.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/scoped_resource.h"

namespace canopy::probe {

struct CpuSamplingRequest {
  int64_t frequency_hz = 99;
  // Counting starts when the task execs (a gated child), not at once (a running one).
  bool enable_on_exec = false;
};

// How the kernel let us sample.
struct CpuSamplingGrant {
  // Samples taken while the task runs in the kernel are kept (their user stack is the
  // code that made the system call); without it, time in the kernel goes unseen.
  bool kernel_time = false;
  // MMAP2 records carry build-ids (Linux 5.12+).
  bool build_ids = false;
  // Samples carry the user registers and a copy of the user stack (x86-64 only).
  bool user_stacks = false;
};

// Calls `visit` with each whole record between `tail` and `head` of a ring's data area
// (a power of two in size), a record that wraps around the end copied into one piece,
// and moves `tail` past them. Separate from the mapping so that it can be tested with
// bytes of our own.
using PerfRecordVisitor = std::function<void(std::span<const unsigned char>)>;
void read_ring_records(std::span<const unsigned char> data, uint64_t head, uint64_t& tail,
                       const PerfRecordVisitor& visit);

// One event and its mapped ring buffer.
class PerfRing {
 public:
  PerfRing(PerfRing&& other) noexcept;
  PerfRing& operator=(PerfRing&&) = delete;
  PerfRing(const PerfRing&) = delete;
  ~PerfRing();
  int fd() const { return fd_.get(); }
  // Every record written since the last call.
  void drain(const PerfRecordVisitor& visit);

 private:
  friend class CpuSampling;
  PerfRing() = default;
  ScopedFd fd_;
  void* mapped_ = nullptr;
  size_t mapped_bytes_ = 0;
};

// The events of one task: one per CPU.
class CpuSampling {
 public:
  // Refused in one line: what perf_event_open said, the paranoid setting, and what
  // would allow it.
  static Result<CpuSampling> open_task(pid_t pid, const CpuSamplingRequest& request);

  const CpuSamplingGrant& grant() const { return grant_; }
  std::vector<PerfRing>& rings() { return rings_; }
  const std::vector<PerfRing>& rings() const { return rings_; }

 private:
  CpuSampling() = default;
  CpuSamplingGrant grant_;
  std::vector<PerfRing> rings_;
};

// /proc/sys/kernel/perf_event_paranoid; nullopt when it cannot be read (no perf
// events in this kernel).
std::optional<int> read_perf_event_paranoid();

}  // namespace canopy::probe
