// One recording from its start to its end, as passes that record() (recorder.cpp)
// runs in order. Internal to record/: the passes up to the sampling loop are in
// record_run_start.cpp, the loop and the end in recorder.cpp.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/scoped_resource.h"
#include "probe/proc_events.h"
#include "probe/task_exits.h"
#include "record/command_cgroup.h"
#include "record/event_filter.h"
#include "record/cpu_profiling.h"
#include "record/heap_profiling.h"
#include "record/profile_stacks.h"
#include "record/launcher.h"
#include "record/limit_watch.h"
#include "record/mark_channel.h"
#include "record/output_capture.h"
#include "record/process_limits.h"
#include "record/recorder.h"
#include "record/session.h"
#include "record/tree_sampler.h"
#include "store/writer.h"

namespace canopy::record {

// Everything one recording holds from its start to its end, and the passes over it in
// the order record() runs them. Members are filled in pass by pass.
class RecordRun {
 public:
  RecordRun(const RecordOptions& options, const Warn& warn)
      : options_(options), warn_(warn), run_mode_(options.attach_pid == 0), root_(options.attach_pid) {}

  Status make_cgroup_and_limits();
  Status block_handled_signals();
  void listen_to_the_kernel();
  Status start_or_check_root();
  Status create_recording();
  Status release_root();
  void sample_until_the_root_ends();
  void stop_what_is_left();
  void close_recording();

  RecordOutcome outcome() const;
  RecordOutcome failed(Error error) const;

 private:
  Status fork_gated_command();
  // --cpu-profile on the gated command; a refusal is warned of, and the recording goes on.
  void open_cpu_profile();
  // --cpu-profile with --pid: the root's threads now, at the recording's creation.
  void open_cpu_profile_running();
  // And the root's descendants that were running before: those started after the root's
  // events were opened are the events' own already (inherited).
  void add_running_descendants_to_cpu_profile();
  // Keeps the profiler opened, or warns of why it could not be and records without one.
  void use_cpu_profile(Result<CpuProfiling> opened);
  uint64_t cpu_attached_boot_ticks_ = 0;  // when the root's events were opened
  // The root's descendants listed just before its events were opened, with their start
  // ticks: surely not inherited, even when started in the tick the events were opened.
  std::vector<std::pair<pid_t, int64_t>> cpu_descendants_before_;
  Status check_attached_root() const;
  void write_end_meta_and_counts(int64_t end_ms);

  const RecordOptions& options_;
  const Warn& warn_;
  const bool run_mode_;
  pid_t root_;

  std::optional<CommandCgroup> cgroup_;
  std::string cgroup_meta_;
  std::optional<ProcessLimits> process_limits_;
  ScopedFd signal_fd_;
  bool sigpipe_ignored_ = false;  // as canopy was started: the command starts so too
  bool sigxfsz_ignored_ = false;
  std::optional<probe::ProcEventSocket> process_events_;
  std::string process_events_meta_ = "off: --no-process-events";
  std::optional<probe::TaskExitListener> exit_records_;
  std::string exit_records_meta_ = "off: --no-process-events";
  std::optional<EventFilter> event_filter_;
  std::optional<int64_t> forks_at_start_;

  std::optional<Launch> launch_;
  std::optional<MarkChannel> marks_;
  std::optional<HeapProfiling> heap_;  // record --heap
  std::optional<CpuProfiling> cpu_;    // record --cpu-profile, when the kernel allowed it
  std::string cpu_meta_;               // what the recording says of it
  std::optional<OutputCapture> capture_;
  Session* session_for_output_ = nullptr;  // set once the recording exists

  std::string path_;
  std::optional<store::Writer> writer_;
  std::optional<ProfileStacks> profile_stacks_;  // both profilers'
  std::optional<TreeSampler> sampler_;
  std::optional<Session> session_;
  std::optional<LimitWatch> limit_watch_;
  std::optional<LiveFiguresBook> live_figures_;  // record --metrics, --live

  int launch_failure_status_ = kExitRecorderFailed;  // 126 or 127 when exec failed
  bool loop_ok_ = true;
  bool finished_ = false;
};

}  // namespace canopy::record
