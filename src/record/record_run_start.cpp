// The passes of a recording up to its sampling loop: the cgroup and limits, the
// signals, the kernel's events, the root (started or attached), the file, and the
// root let go. The loop and the end are in recorder.cpp.
#include "record/record_run.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "probe/running_tree.h"
#include "record/recording_meta.h"

namespace canopy::record {
namespace {

// A process's start in clock ticks since boot, or nothing when it is gone.
std::optional<int64_t> descendant_start_ticks(pid_t pid) {
  auto files = probe::ProcessFiles::open(pid);
  auto stat = files ? files->read_stat() : std::nullopt;
  return stat ? std::optional<int64_t>(stat->start_ticks) : std::nullopt;
}

std::string default_output_name(pid_t pid) {
  time_t now = ::time(nullptr);
  tm local{};
  ::localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  return std::string("canopy-") + stamp + "-" + std::to_string(pid) + ".canopy";
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

Error system_error(const char* what) { return Error{std::string(what) + ": " + std::strerror(errno)}; }

}  // namespace

// The command's cgroup, when canopy can make one, and the limits: checked before
// anything starts. Without a cgroup, the tree-wide limits fall back to per-process
// stand-ins (see process_limits.h).
Status RecordRun::make_cgroup_and_limits() {
  if (!run_mode_ && options_.limits.any()) {
    return Error{"resource limits apply to a command canopy runs, not to one it attaches to (--pid)"};
  }
  if (run_mode_ && options_.attach_duration_ms) {
    return Error{"--duration is for a process canopy attaches to (--pid): a command it runs is recorded to its "
                 "end (--timeout stops it)"};
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

// Blocked before any child exists, so that none is lost. SIGXFSZ and SIGPIPE are
// ignored from here on; the command is given them as canopy was.
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
  // What the command is to inherit, before the recorder changes it for itself.
  struct sigaction inherited {};
  ::sigaction(SIGPIPE, nullptr, &inherited);
  sigpipe_ignored_ = inherited.sa_handler == SIG_IGN;
  ::sigaction(SIGXFSZ, nullptr, &inherited);
  sigxfsz_ignored_ = inherited.sa_handler == SIG_IGN;
  // A file-size limit (ulimit -f) must not kill the recorder and orphan the command:
  // ignored, a write past it fails (EFBIG) and the recording stops as on a full disk.
  ::signal(SIGXFSZ, SIG_IGN);
  // Our stderr or stdout may be a pipe whose reader goes away (`canopy record ... 2>&1 |
  // head`): a write to it must not kill the recorder, losing the command's exit status
  // to 141. The write fails (EPIPE) and is dropped; with --capture-output, OutputCapture
  // passes the EPIPE on to the command.
  ::signal(SIGPIPE, SIG_IGN);
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
  setup.sigpipe_ignored = sigpipe_ignored_;
  setup.sigxfsz_ignored = sigxfsz_ignored_;
  ASSIGN_OR_RETURN(auto channel, MarkChannel::create());
  marks_.emplace(std::move(channel));
  setup.environment.push_back(std::string(kMarkVariable) + "=" + marks_->path());
  if (options_.heap_rate_bytes) {
    ASSIGN_OR_RETURN(auto heap, HeapProfiling::prepare(options_, marks_->directory()));
    heap_.emplace(std::move(heap));
    for (std::string& variable : heap_->environment()) {
      setup.environment.push_back(std::move(variable));
    }
  }
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
  open_cpu_profile();
  return apply_process_limits(root_, *process_limits_);
}

void RecordRun::open_cpu_profile_running() {
  if (!options_.cpu_profile_hz || run_mode_) {
    return;
  }
  // An fd per CPU for each thread of the tree: a root with hundreds of threads needs
  // more than the usual soft limit. Nothing of ours is started with it (attach mode).
  raise_fd_limit();
  for (pid_t pid : probe::read_descendants(root_)) {
    if (auto start_ticks = descendant_start_ticks(pid)) {
      cpu_descendants_before_.emplace_back(pid, *start_ticks);
    }
  }
  timespec now{};
  ::clock_gettime(CLOCK_BOOTTIME, &now);
  const auto ticks_per_s = static_cast<uint64_t>(::sysconf(_SC_CLK_TCK));
  cpu_attached_boot_ticks_ = static_cast<uint64_t>(now.tv_sec) * ticks_per_s +
                             static_cast<uint64_t>(now.tv_nsec) * ticks_per_s / 1'000'000'000;
  use_cpu_profile(CpuProfiling::open_running(root_, *options_.cpu_profile_hz));
}

void RecordRun::add_running_descendants_to_cpu_profile() {
  if (!cpu_ || run_mode_) {
    return;
  }
  for (pid_t pid : probe::read_descendants(root_)) {
    auto start_ticks = descendant_start_ticks(pid);
    if (!start_ticks) {
      continue;
    }
    // Started before the root's events: no event of the tree inherited it. One listed
    // before they were opened is surely such; of the others, one started in the same
    // clock tick as the opening is taken as inherited (missed, never sampled twice):
    // only a fork between the listing and the opening falls there.
    bool listed_before = std::find(cpu_descendants_before_.begin(), cpu_descendants_before_.end(),
                                   std::pair<pid_t, int64_t>{pid, *start_ticks}) != cpu_descendants_before_.end();
    if (listed_before || static_cast<uint64_t>(*start_ticks) < cpu_attached_boot_ticks_) {
      cpu_->add_running(pid);
    }
  }
  cpu_descendants_before_.clear();
}

void RecordRun::open_cpu_profile() {
  if (!options_.cpu_profile_hz) {
    return;
  }
  use_cpu_profile(CpuProfiling::open_gated(root_, *options_.cpu_profile_hz));
}

void RecordRun::use_cpu_profile(Result<CpuProfiling> opened) {
  if (!opened) {
    cpu_meta_ = "off: " + opened.error().message;
    warn_("--cpu-profile off: " + opened.error().message + "; recording without a CPU profile");
    return;
  }
  cpu_.emplace(std::move(*opened));
  cpu_meta_ = cpu_->description();
}

Status RecordRun::check_attached_root() const {
  const std::string cannot = "cannot attach to PID " + std::to_string(root_);
  if (root_ == ::getpid()) {
    return Error{cannot + ": that is this recorder"};
  }
  auto files = probe::ProcessFiles::open(root_);
  auto stat = files ? files->read_stat() : std::nullopt;
  if (!stat) {
    return Error{cannot + ": no such process"};
  }
  if (stat->state == 'Z' || stat->state == 'X') {
    // Its /proc files stay until its parent waits for it, but hold nothing to record.
    return Error{cannot + ": it has exited (a zombie: its parent " + std::to_string(stat->ppid) +
                 " has not yet waited for it)"};
  }
  if (stat->flags & probe::kStatFlagKernelThread) {
    return Error{cannot + ": it is a kernel thread (" + stat->name + "): it has no user memory to record"};
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
  SamplerOptions sampler_options{options_.pss, options_.pss_interval_ms, run_mode_, process_events_.has_value(),
                                 cgroup_ ? &*cgroup_ : nullptr};
  sampler_options.programs = heap_ ? heap_->programs() : nullptr;
  sampler_.emplace(*writer_, host, sampler_options);
  session_.emplace(Session{options_, RecordingClock(), *writer_, *sampler_, root_, run_mode_, std::nullopt, false,
                           true, capture_ ? &*capture_ : nullptr, marks_ ? &*marks_ : nullptr,
                           process_events_ ? &*process_events_ : nullptr, exit_records_ ? &*exit_records_ : nullptr,
                           nullptr, {}, &warn_});
  session_for_output_ = &*session_;
  profile_stacks_.emplace(*writer_);
  open_cpu_profile_running();
  auto process_id_of = [this](pid_t pid) { return sampler_->process_id(pid); };
  if (heap_) {
    RETURN_IF_ERROR(writer_->enable_heap());
    heap_->start_ingest(*writer_, *profile_stacks_, session_->clock, process_id_of);
    session_->heap = &*heap_;
  }
  if (cpu_) {
    RETURN_IF_ERROR(writer_->enable_cpu_profile());
    cpu_->start(*writer_, *profile_stacks_, session_->clock, process_id_of);
    session_->cpu = &*cpu_;
  }
  limit_watch_.emplace(options_.limits, cgroup_ ? &*cgroup_ : nullptr, *writer_, *sampler_, session_->clock.now_ms());
  if (run_mode_) {
    session_->limits = &*limit_watch_;
  }
  if (!options_.live_figures.empty()) {
    live_figures_.emplace(options_.live_figures);
    session_->live = &*live_figures_;
    for (live::LiveFiguresSink* sink : options_.live_figures) {
      sink->recording_created(path_);
    }
  }
  write_start_meta(*writer_, options_, host, session_->clock.start_ms(), root_);
  store::RecordingMeta watched;
  if (capture_) {
    watched.output_capture = capture_->kinds();
  }
  watched.process_events = process_events_meta_;
  watched.exit_records = exit_records_meta_;
  watched.cgroup = cgroup_meta_;
  if (options_.cpu_profile_hz) {
    watched.cpu_profile = cpu_meta_;
  }
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
  add_running_descendants_to_cpu_profile();
  raise_fd_limit();
  return Ok{};
}

}  // namespace canopy::record
