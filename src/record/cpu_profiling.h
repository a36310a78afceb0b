// record --cpu-profile as the recorder runs it: the kernel's sampling events opened on
// the gated command before it execs (probe/perf_sampling.h), their ring buffers read
// by the sampling loop, each sample's user stack resolved against the mappings the
// kernel reported for its process (MMAP2 records, build-ids included) into the
// profilers' shared stacks (profile_stacks.h), and written as cpu_sample rows. A user
// stack is unwound by DWARF CFI from the copy the sample carries (unwind/), as soon as
// it is read, while the objects it ran are still on disk; the kernel's frame-pointer
// walk fills in what that cannot reach. The copy itself is never stored.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "probe/perf_records.h"
#include "probe/perf_sampling.h"
#include "record/profile_stacks.h"
#include "record/recording_clock.h"
#include "store/writer.h"
#include "unwind/stack_unwinder.h"

namespace canopy::record {

class CpuProfiling {
 public:
  using ProcessIdOf = std::function<std::optional<int64_t>(pid_t)>;

  // On the gated command, before it execs: sampling starts at its exec, and every
  // thread and process it starts afterwards is sampled too. Refused in one line (the
  // kernel's answer, the setting that decides it, what would allow it).
  static Result<CpuProfiling> open_gated(pid_t pid, int64_t frequency_hz);
  // On a running process (record --pid): every thread it has now, sampled at once, and
  // what they start afterwards. Refused in one line as above.
  static Result<CpuProfiling> open_running(pid_t pid, int64_t frequency_hz);
  // Another process that was running before sampling started (a descendant of the
  // attached root), once start() has been called: its threads, and its mappings from
  // /proc. False when it is gone, or the kernel refused it.
  bool add_running(pid_t pid);

  // "99 Hz, user and kernel time" or "99 Hz, user time only": for the recording's meta.
  std::string description() const;

  // Once the recording exists, before the command runs.
  void start(store::Writer& writer, ProfileStacks& stacks, const RecordingClock& clock, ProcessIdOf process_id_of);
  std::vector<int> poll_fds() const;
  // The records the kernel has written up to now: those up to the moment of the read,
  // in time order across the rings (a process's mappings come before its samples
  // whichever CPU each was written on), the later ones kept for the next read.
  void read_available();
  // After the tree has ended: every record left.
  void finish();

  int64_t samples() const { return samples_; }
  int64_t samples_lost() const { return samples_lost_; }

 private:
  CpuProfiling(std::vector<probe::CpuSampling> samplings, int64_t frequency_hz, std::vector<pid_t> running)
      : samplings_(std::move(samplings)), frequency_hz_(frequency_hz), running_(std::move(running)) {}
  // The events of every thread of a running process; refused when the first is.
  static Result<std::vector<probe::CpuSampling>> open_threads(pid_t pid, int64_t frequency_hz);
  // The executable mappings a running process had before its events were opened.
  void add_mappings_from_proc(pid_t pid);
  struct Mapping {
    uint64_t start;
    uint64_t end;
    uint64_t bias;  // pc - bias: the address in the object's own address space
    int64_t module_id;
    int64_t object_id;  // the unwinder's
  };
  struct TimedRecord {
    uint64_t time_ns;
    probe::PerfRecord record;
  };
  void drain_rings();
  void handle(const probe::PerfRecord& record);
  // A handled sample's stack-copy buffer, kept for a later sample to be parsed into.
  void reuse_stack_buffer(probe::PerfRecord& record);
  void add_mapping(const probe::PerfMmap& mmap);
  void add_sample(const probe::PerfSample& sample);
  int64_t frame_id(pid_t pid, const std::vector<Mapping>& mappings, uint64_t pc);
  // The sample's user stack as addresses readers look up one byte back (the call's
  // line): return addresses, and an interrupted instruction one byte on.
  void stack_addresses(const probe::PerfSample& sample, const std::vector<Mapping>& mappings);

  std::vector<probe::CpuSampling> samplings_;  // one for the gated command; one per thread attached to
  int64_t frequency_hz_;
  std::vector<pid_t> running_;  // processes attached to while running: their mappings read at start()
  store::Writer* writer_ = nullptr;
  ProfileStacks* stacks_ = nullptr;
  const RecordingClock* clock_ = nullptr;
  ProcessIdOf process_id_of_;
  std::unordered_map<pid_t, std::vector<Mapping>> mappings_;  // by process, each by start
  // The process row of each PID as last known: the sampler forgets a process at its
  // end, and its last samples may be read after that. Dropped when the PID is forked
  // anew (reused).
  std::unordered_map<pid_t, int64_t> process_ids_;
  std::vector<TimedRecord> waiting_;  // read, not yet handled: newer than the last read's moment
  // Stack-copy buffers of handled samples: allocating 8 KiB for each sample was, with
  // the copy, a tenth of the recorder's CPU profiling work (a profile of the recorder).
  std::vector<unsigned char> parse_stack_;
  std::vector<std::vector<unsigned char>> spare_stacks_;
  std::vector<int64_t> frames_;       // add_sample's buffer
  std::vector<uint64_t> addresses_;   // stack_addresses' result
  std::vector<unwind::ObjectMapping> object_mappings_;  // stack_addresses' buffer
  // On the heap: its libdwfl sessions point at it, and CpuProfiling moves.
  std::unique_ptr<unwind::StackUnwinder> unwinder_ = std::make_unique<unwind::StackUnwinder>();
  // The virtual address at a mapped file offset, by (path, build-id, offset): the same
  // in every process, read from the object's program headers once.
  std::map<std::tuple<std::string, std::string, uint64_t>, uint64_t> vaddr_at_offset_;
  // Build-ids of mappings reported without one, by path: read from their files, or for
  // "[vdso]" from the recorder's own vDSO.
  std::unordered_map<std::string, std::string> file_build_ids_;
  int64_t samples_ = 0;
  int64_t samples_lost_ = 0;
};

}  // namespace canopy::record
