// record --heap: which processes of the tree the heap profiler reported from, and why
// the others did not. Each program a process runs is looked at as it starts (its exec
// event, or its first sighting): whether the kernel gave it a dynamic loader, ran it
// in secure-execution mode, and whether its environment still preloads the profiler
// and names the socket. As the recording ends, a process whose last program left no
// image gets a heap_unprofiled row with the reason: that evidence; or the one the
// profiler gave when it loaded and stood aside ("sanitizer", "own malloc"), for its
// process and the forks that run on in its program; or "no samples" when the profiler
// was to load and sent nothing; or "unknown" when the program was gone before the look.
//
// A look costs two small reads (/proc/PID/auxv, and /proc/PID/environ up to the two
// variables), only with --heap, and only for a process that starts a program: a
// fork that runs on in its parent's program inherits its parent's verdict.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "record/tree_sampler.h"
#include "store/heap_rows.h"

namespace canopy::record {

class HeapCoverage final : public ProgramWatch {
 public:
  // `library`: the profiler's path as LD_PRELOAD carries it; `socket`: the recorder's,
  // as CANOPY_HEAP_SOCKET does; `rate_bytes`: the recording's sampling rate.
  // `recorder_uid`: the user the socket's directory belongs to (the recorder's).
  HeapCoverage(std::string library, std::string socket, int64_t rate_bytes, uid_t recorder_uid = ::geteuid())
      : library_(std::move(library)),
        socket_(std::move(socket)),
        rate_bytes_(rate_bytes),
        recorder_uid_(recorder_uid) {}

  void on_program(int64_t process_id, pid_t pid, probe::ProcessFiles* files, uint64_t exec_ns) override;
  void on_fork(int64_t process_id, pid_t pid, int64_t parent_id, uint64_t forked_ns) override;
  void on_exec_time(int64_t process_id, uint64_t exec_ns) override;
  void on_never_execd(int64_t process_id, int64_t parent_id) override;

  // An image of the profiler from `pid` (its process row, when the recorder knew it),
  // loaded at `loaded_ns` (CLOCK_MONOTONIC; a fork's image keeps its parent's).
  void on_image(std::optional<int64_t> process_id, pid_t pid, uint64_t loaded_ns);
  // A profiler that loaded and said it would send nothing, and why (a sanitized
  // program's): the reason of its process, and of the children it forks.
  void on_stood_aside(std::optional<int64_t> process_id, pid_t pid, uint64_t loaded_ns, const char* reason);

  // Each process whose last program left no image, by process id: once every image
  // has arrived (after the tree has ended).
  std::vector<store::HeapUnprofiledRow> unprofiled() const;

  // Why the profiler would not load into a program, from its files (nullptr: gone);
  // nullptr when it would. Public for the unit tests.
  const char* reason_not_loaded(probe::ProcessFiles* files) const;

 private:
  struct Program {
    pid_t pid = 0;
    const char* reason = nullptr;  // nullptr: the profiler was to load
    uint64_t started_ns = 0;       // its exec, or 0 when unknown: any image of the process is its
    std::optional<int64_t> forked_from;  // the process it was forked from, when it runs that one's program
    uint64_t forked_ns = 0;              // with forked_from: its fork's time, or a moment after (0: unknown)
  };
  struct Image {
    std::optional<int64_t> process_id;
    pid_t pid = 0;
    uint64_t loaded_ns = 0;
    const char* stood_aside_for = nullptr;  // set: the profiler stood aside in it, for this reason
  };
  class LatestImages;
  const char* aside_reason(int64_t process_id, const Program& program, const LatestImages& asides) const;

  std::string library_;
  std::string socket_;
  int64_t rate_bytes_;
  uid_t recorder_uid_;
  std::unordered_map<int64_t, Program> programs_;  // the last of each process, by process id
  std::vector<Image> images_;
};

}  // namespace canopy::record
