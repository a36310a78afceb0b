// The record pass list: check the limits, listen to the kernel, start or attach,
// create the recording, sample until the tree's root ends, stop what is left, close
// the recording. Printing the outcome is the CLI's (cli/record_command.cpp).
#include "record/recorder.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "common/text.h"
#include "common/units.h"
#include "record/record_run.h"
#include "record/recording_meta.h"

namespace canopy::record {
namespace {

// The finished recording's path to print, from the working directory when relative.
// "-o ../x.canopy" prints without its "..", resolved against the file system as the
// kernel resolves it (through a link, ".." is the link target's parent).
std::string absolute_path(const std::string& path) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) {
    return path;
  }
  for (const auto& part : absolute) {
    if (part == "." || part == "..") {
      std::filesystem::path resolved = std::filesystem::weakly_canonical(absolute, error);
      return error ? absolute.string() : resolved.string();
    }
  }
  return absolute.string();
}

int exit_status_of(int wait_status) {
  if (WIFEXITED(wait_status)) {
    return WEXITSTATUS(wait_status);
  }
  if (WIFSIGNALED(wait_status)) {
    return 128 + WTERMSIG(wait_status);
  }
  return kExitRecorderFailed;
}

}  // namespace

void RecordRun::sample_until_the_root_ends() {
  Session& s = *session_;
  if (auto looped = sampling_loop(s, signal_fd_.get()); !looped) {
    warn_(looped.error().message);
    loop_ok_ = false;
  }
  if (run_mode_ && !s.root_wait_status) {
    // The loop failed: do not leave the command unsupervised and unwaited.
    int status = 0;
    while (::waitpid(root_, &status, 0) < 0 && errno == EINTR) {
    }
    s.root_wait_status = status;
  }
}

// A timeout stops the whole tree: what outlived the root gets the rest of the grace,
// then SIGKILL, and is reaped here (orphans are ours, as the subreaper).
void RecordRun::stop_what_is_left() {
  Session& s = *session_;
  while (s.recording && limit_watch_->stop_leftovers(s.clock.now_ms())) {
    ::usleep(static_cast<useconds_t>(std::min<int64_t>(options_.interval_ms, 100) * 1000));
    handle_child_exits(s);
    read_process_events(s);
    sampler_->tick(s.clock.now_ms());
  }
  if (limit_watch_->hit() == "timeout" || limit_watch_->hit() == "cpu-time") {
    handle_child_exits(s);  // the orphans a cgroup kill just ended are ours to reap
  }
}

// The output, markers and process events still on their way, a last round for the
// survivors, then meta and checkpoint.
void RecordRun::close_recording() {
  Session& s = *session_;
  if (capture_) {
    capture_->drain(s.clock.now_ms());
  }
  if (marks_) {
    marks_->stop_watching();  // no more wakeups: its release overlaps the finishing below
  }
  read_marks(s);
  read_process_events(s);
  if (heap_ && s.recording) {
    heap_->finish();
  }
  if (cpu_ && s.recording) {
    cpu_->finish();
  }
  if (s.recording) {
    int64_t end_ms = sampler_->tick(s.clock.now_ms());
    if (s.limits) {
      s.limits->last_tick(end_ms);  // the limits that ended the root itself
    }
    sampler_->finish(end_ms);
    if (heap_) {
      heap_->write_unprofiled(*writer_);
    }
    write_end_meta_and_counts(end_ms);
  }
  auto finished = writer_->finish();
  if (!finished && s.recording) {  // a failure that stopped the recording was said then
    warn_(finished.error().message);
  }
  finished_ = finished.ok();
  if (s.live) {
    s.live->committed();  // its end: a live viewer shows it at once
  }
}

void RecordRun::write_end_meta_and_counts(int64_t end_ms) {
  write_end_meta(*writer_, end_ms, sampler_->process_count(), session_->root_wait_status, run_mode_);
  store::RecordingMeta counts;
  if (process_events_) {
    counts.process_events_lost = process_events_->lost();
    event_filter_->write_end_meta(*writer_);
  }
  if (exit_records_) {
    counts.exit_records_lost = exit_records_->lost();
    counts.processes_with_exit_records = sampler_->processes_with_exit_records();
  }
  if (cpu_) {
    counts.cpu_samples_lost = cpu_->samples_lost();
  }
  auto forks_at_end = probe::read_forks_since_boot();
  if (forks_at_start_ && forks_at_end) {
    counts.machine_forks = *forks_at_end - *forks_at_start_;
  }
  writer_->set_meta(counts);
}

RecordOutcome RecordRun::outcome() const {
  RecordOutcome outcome;
  outcome.command_wait_status = session_->root_wait_status;
  if (finished_ && session_->recording) {
    outcome.complete_recording = absolute_path(path_);
  }
  if (!loop_ok_ || (!run_mode_ && !finished_)) {
    outcome.exit_status = kExitRecorderFailed;
  } else {
    outcome.exit_status = run_mode_ ? limit_watch_->exit_status(exit_status_of(*session_->root_wait_status)) : 0;
  }
  return outcome;
}

RecordOutcome RecordRun::failed(Error error) const {
  RecordOutcome outcome;
  outcome.exit_status = launch_failure_status_;
  outcome.failure = std::move(error);
  return outcome;
}

namespace {

Status start(RecordRun& run) {
  RETURN_IF_ERROR(run.make_cgroup_and_limits());
  RETURN_IF_ERROR(run.block_handled_signals());
  run.listen_to_the_kernel();
  RETURN_IF_ERROR(run.start_or_check_root());
  RETURN_IF_ERROR(run.create_recording());
  return run.release_root();
}

}  // namespace

IntervalDefault interval_from_environment() {
  for (const char* name : {"CANOPY_INTERVAL", "ONLOOKER_POLL_INTERVAL"}) {
    const char* value = ::getenv(name);
    if (!value || !*value) {
      continue;
    }
    auto ms = parse_interval_ms(value);
    if (!ms || *ms < 1 || *ms > kIntervalMostMs) {
      return {kDefaultIntervalMs, std::string(name) + "='" + value +
                                      "' is not an interval from 1ms to 1h, such as 250ms or 2s (a bare number is "
                                      "milliseconds)"};
    }
    return {*ms, ""};
  }
  return {kDefaultIntervalMs, ""};
}

RecordOutcome record(const RecordOptions& options, const Warn& warn) {
  RecordRun run(options, warn);
  if (auto started = start(run); !started) {
    return run.failed(started.error());
  }
  run.sample_until_the_root_ends();
  run.stop_what_is_left();
  run.close_recording();
  return run.outcome();
}

}  // namespace canopy::record
