// The record pass list: check the limits, listen to the kernel, start or attach,
// create the recording, sample until the tree's root ends, stop what is left, close
// the recording. Printing the outcome is the CLI's (cli/record_command.cpp).
#include "record/recorder.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>

#include "common/text.h"
#include "probe/proc_events.h"
#include "probe/task_exits.h"
#include "record/command_cgroup.h"
#include "record/event_filter.h"
#include "record/launcher.h"
#include "record/limit_watch.h"
#include "record/mark_channel.h"
#include "record/output_capture.h"
#include "record/process_limits.h"
#include "record/recording_meta.h"
#include "record/session.h"
#include "record/tree_sampler.h"

namespace canopy::record {
namespace {

std::string default_output_name(pid_t pid) {
  time_t now = ::time(nullptr);
  tm local{};
  ::localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  return std::string("canopy-") + stamp + "-" + std::to_string(pid) + ".canopy";
}

std::string absolute_path(const std::string& path) {
  if (!path.empty() && path[0] == '/') {
    return path;
  }
  char cwd[PATH_MAX];
  return ::getcwd(cwd, sizeof cwd) ? std::string(cwd) + "/" + path : path;
}

// Keeping /proc files open costs a handful of fds per process; a tree of thousands
// needs more than the usual soft limit of 1024. Raised after the command has started,
// so that the command itself inherits the limits it would have had without us.
void raise_fd_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
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

Error system_error(const char* what) { return Error{std::string(what) + ": " + std::strerror(errno)}; }

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
  std::optional<probe::ProcEventSocket> process_events_;
  std::string process_events_meta_ = "off: --no-process-events";
  std::optional<probe::TaskExitListener> exit_records_;
  std::string exit_records_meta_ = "off: --no-process-events";
  std::optional<EventFilter> event_filter_;
  std::optional<int64_t> forks_at_start_;

  std::optional<Launch> launch_;
  std::optional<MarkChannel> marks_;
  std::optional<OutputCapture> capture_;
  Session* session_for_output_ = nullptr;  // set once the recording exists

  std::string path_;
  std::optional<store::Writer> writer_;
  std::optional<TreeSampler> sampler_;
  std::optional<Session> session_;
  std::optional<LimitWatch> limit_watch_;

  int launch_failure_status_ = kExitRecorderFailed;  // 126 or 127 when exec failed
  bool loop_ok_ = true;
  bool finished_ = false;
};

// The command's cgroup, when canopy can make one, and the limits: checked before
// anything starts. Without a cgroup, the tree-wide limits fall back to per-process
// stand-ins (see process_limits.h).
Status RecordRun::make_cgroup_and_limits() {
  if (!run_mode_ && options_.limits.any()) {
    return Error{"resource limits apply to a command canopy runs, not to one it attaches to (--pid)"};
  }
  cgroup_meta_ = run_mode_ ? "off: --no-cgroup" : "off: attached (the process stays where it is)";
  if (run_mode_ && options_.cgroup) {
    auto created = CommandCgroup::create(options_.limits);
    if (created) {
      cgroup_.emplace(std::move(*created));
      cgroup_meta_ = cgroup_->description();
    } else {
      cgroup_meta_ = "off: " + created.error().message;
    }
  }
  ASSIGN_OR_RETURN(process_limits_, cgroup_ ? process_limits_with_cgroup(options_.limits)
                                            : process_limits_without_cgroup(
                                                  options_.limits, "there is none (" + cgroup_meta_ + ")"));
  return Ok{};
}

// Blocked before any child exists, so that none is lost.
Status RecordRun::block_handled_signals() {
  sigset_t handled;
  sigemptyset(&handled);
  for (int signal : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    sigaddset(&handled, signal);
  }
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  signal_fd_.reset(::signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC));
  if (!signal_fd_) {
    return system_error("signalfd");
  }
  return Ok{};
}

// The kernel's process events and taskstats exit records, when it lets us listen:
// subscribed before the command starts, so that its first fork is heard. Each is
// independent of the other (the kernel may grant one and not the other).
void RecordRun::listen_to_the_kernel() {
  if (options_.process_events) {
    if (auto opened = probe::ProcEventSocket::open()) {
      process_events_.emplace(std::move(*opened));
      process_events_meta_ = "netlink";
    } else {
      process_events_meta_ = "off: " + opened.error().message;
    }
    if (auto opened = probe::TaskExitListener::open(probe::read_host_info().cpu_count)) {
      exit_records_.emplace(std::move(*opened));
      exit_records_meta_ = "taskstats";
    } else {
      exit_records_meta_ = "off: " + opened.error().message;
    }
  }
  // Only the tree's events and records, where the kernel can tell (see EventFilter).
  if (process_events_) {
    event_filter_.emplace(*process_events_, exit_records_ ? &*exit_records_ : nullptr, options_.attach_pid);
  }
  forks_at_start_ = probe::read_forks_since_boot();
}

// The root: a gated child (run) or an existing process (attach).
Status RecordRun::start_or_check_root() { return run_mode_ ? fork_gated_command() : check_attached_root(); }

// A command we run gets CANOPY_MARK, and with --capture-output its stdout and stderr go
// through us. It waits at the gate until the recording exists.
Status RecordRun::fork_gated_command() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    return system_error("cannot become a subreaper");
  }
  ChildSetup setup;
  ASSIGN_OR_RETURN(auto channel, MarkChannel::create());
  marks_.emplace(std::move(channel));
  setup.environment.push_back(std::string(kMarkVariable) + "=" + marks_->path());
  if (options_.capture_output) {
    ASSIGN_OR_RETURN(auto created,
                     OutputCapture::create([this](int64_t t_ms, const char* stream, const std::string& text) {
                       if (session_for_output_) {
                         add_output_line(*session_for_output_, t_ms, stream, text);
                       }
                     }));
    capture_.emplace(std::move(created));
    setup.stdout_fd = capture_->child_stdout();
    setup.stderr_fd = capture_->child_stderr();
    // Our own stdout may be a pipe whose reader goes away (`... | head`): that must
    // not kill the recorder; OutputCapture passes the EPIPE on to the command.
    ::signal(SIGPIPE, SIG_IGN);
  }
  setup.cgroup_fd = cgroup_ ? cgroup_->clone_fd() : -1;  // v2: born inside it
  ASSIGN_OR_RETURN(auto forked, Launch::fork_gated(options_.command, setup));
  launch_.emplace(std::move(forked));
  root_ = launch_->pid();
  // Set on the gated child, so the command and all it starts inherit them; on any
  // error from here, ~Launch aborts the child before it ever ran.
  if (cgroup_ && cgroup_->version() == 1) {
    RETURN_IF_ERROR(cgroup_->add(root_));  // before it runs: nothing escapes
  }
  return apply_process_limits(root_, *process_limits_);
}

Status RecordRun::check_attached_root() const {
  const std::string cannot = "cannot attach to PID " + std::to_string(root_);
  if (root_ == ::getpid()) {
    return Error{cannot + ": that is this recorder"};
  }
  auto files = probe::ProcessFiles::open(root_);
  if (!files || !files->read_stat()) {
    return Error{cannot + ": no such process"};
  }
  if (!files->has_io() || files->read_exe().empty()) {
    return Error{cannot + ": permission denied (its /proc files need the same user or CAP_SYS_PTRACE)"};
  }
  return Ok{};
}

// The file, the sampler and the session, and the meta known at the start.
Status RecordRun::create_recording() {
  path_ = options_.output.empty() ? default_output_name(root_) : options_.output;
  ASSIGN_OR_RETURN(auto writer, store::Writer::create(path_, options_.force));
  writer_.emplace(std::move(writer));
  probe::HostInfo host = probe::read_host_info();
  sampler_.emplace(*writer_, host,
                   SamplerOptions{options_.pss, options_.pss_interval_ms, run_mode_, process_events_.has_value(),
                                        cgroup_ ? &*cgroup_ : nullptr});
  session_.emplace(Session{options_, RecordingClock(), *writer_, *sampler_, root_, run_mode_, std::nullopt, false,
                           true, capture_ ? &*capture_ : nullptr, marks_ ? &*marks_ : nullptr,
                           process_events_ ? &*process_events_ : nullptr, exit_records_ ? &*exit_records_ : nullptr,
                           nullptr, {}, &warn_});
  session_for_output_ = &*session_;
  limit_watch_.emplace(options_.limits, cgroup_ ? &*cgroup_ : nullptr, *writer_, *sampler_, session_->clock.now_ms());
  if (run_mode_) {
    session_->limits = &*limit_watch_;
  }
  write_start_meta(*writer_, options_, host, session_->clock.start_ms(), root_);
  store::RecordingMeta watched;
  if (capture_) {
    watched.output_capture = capture_->kinds();
  }
  watched.process_events = process_events_meta_;
  watched.exit_records = exit_records_meta_;
  watched.cgroup = cgroup_meta_;
  writer_->set_meta(watched);
  if (event_filter_) {
    event_filter_->write_start_meta(*writer_);
  }
  return Ok{};
}

// Opens the gate, then tracks the root (after exec, so that its first sample is the
// command's and not our fork's). Its children are found on the first tick.
Status RecordRun::release_root() {
  if (launch_) {
    if (auto failure = launch_->release()) {
      writer_->finish().ok();  // close before removing
      ::unlink(path_.c_str());
      launch_failure_status_ = failure->exit_status;
      return Error{failure->message};
    }
    launch_.reset();
    if (capture_) {
      capture_->close_child_ends();
    }
  }
  if (!sampler_->add_root(root_, session_->clock.now_ms()) && !run_mode_) {
    ::unlink(path_.c_str());
    return Error{"cannot attach to PID " + std::to_string(root_) + ": it ended before the first sample"};
  }
  raise_fd_limit();
  return Ok{};
}

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
  if (s.recording) {
    int64_t end_ms = sampler_->tick(s.clock.now_ms());
    if (s.limits) {
      s.limits->last_tick(end_ms);  // the limits that ended the root itself
    }
    sampler_->finish(end_ms);
    write_end_meta_and_counts(end_ms);
  }
  auto finished = writer_->finish();
  if (!finished) {
    warn_(finished.error().message);
  }
  finished_ = finished.ok();
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
    auto ms = parse_int<int64_t>(value);
    if (!ms || *ms < 1) {
      return {kDefaultIntervalMs, std::string(name) + "='" + value + "' is not a number of milliseconds >= 1"};
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
