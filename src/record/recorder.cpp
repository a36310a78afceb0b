// The record pass list: check the output, start or attach, sample until the tree's
// root ends, close the recording, print the summary, exit with the command's status.
#include <signal.h>
#include <sys/poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "analyze/summary.h"
#include "probe/proc_events.h"
#include "probe/task_exits.h"
#include "common/text.h"
#include "record/command_cgroup.h"
#include "record/launcher.h"
#include "record/limit_watch.h"
#include "record/process_limits.h"
#include "record/mark_channel.h"
#include "record/options.h"
#include "record/output_capture.h"
#include "record/recording_meta.h"
#include "record/tree_sampler.h"
#include "report/summary_format.h"
#include "store/reader.h"

namespace canopy::record {
namespace {

void print_error(const std::string& message) { std::fprintf(stderr, "canopy: %s\n", message.c_str()); }

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

int64_t monotonic_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

// Timestamps come from the monotonic clock anchored at the wall-clock start, so that
// a clock step (NTP) during the recording never reorders or duplicates ticks.
class RecordingClock {
 public:
  RecordingClock() : epoch_start_ms_(probe::now_epoch_ms()), monotonic_start_ms_(monotonic_ms()) {}
  int64_t now_ms() const { return epoch_start_ms_ + monotonic_ms() - monotonic_start_ms_; }
  // A kernel timestamp on the monotonic clock (a process event's) on the same scale.
  int64_t from_monotonic_ns(uint64_t ns) const {
    return epoch_start_ms_ + static_cast<int64_t>(ns / 1'000'000) - monotonic_start_ms_;
  }

 private:
  int64_t epoch_start_ms_;
  int64_t monotonic_start_ms_;
};

const char* signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  static thread_local char name[32];
  std::snprintf(name, sizeof name, "SIG%s", abbrev ? abbrev : "?");
  return name;
}

struct Session {
  const RecordOptions& options;
  RecordingClock clock;
  store::Writer& writer;
  TreeSampler& sampler;
  pid_t root = 0;
  bool run_mode = false;
  std::optional<int> root_wait_status;
  bool stop_requested = false;
  bool recording = true;  // false after a write error: keep supervising, stop writing
  OutputCapture* capture = nullptr;  // with --capture-output
  MarkChannel* marks = nullptr;      // run mode: CANOPY_MARK
  probe::ProcEventSocket* process_events = nullptr;  // when the kernel lets us listen
  probe::TaskExitListener* exit_records = nullptr;   // taskstats, likewise
  LimitWatch* limits = nullptr;                      // run mode
};

// Fork, exec and exit of the tree's processes at their exact times, before anything
// else looks at the tree: a tick, or the reaping of a child.
void read_process_events(Session& s) {
  if (!s.recording) {
    return;
  }
  // Exit records first: the kernel sends each before its process's exit event.
  if (s.exit_records) {
    // Each record's own arrival time: a drain during a burst of brief processes can
    // outlast some of them, and a record stamped before its process's fork would be
    // taken for an earlier process's with the same PID (ExitRecords::on_end).
    s.exit_records->drain([&](const probe::TaskExit& e) { s.sampler.on_task_exit(e, s.clock.now_ms()); });
  }
  if (!s.process_events) {
    return;
  }
  s.process_events->drain([&](const probe::ProcEvent& e) {
    int64_t t = s.clock.from_monotonic_ns(e.monotonic_ns);
    switch (e.kind) {
      case probe::ProcEvent::Kind::kFork:
        s.sampler.on_fork(e.pid, e.parent, t);
        break;
      case probe::ProcEvent::Kind::kExec:
        s.sampler.on_exec(e.pid, t);
        break;
      case probe::ProcEvent::Kind::kExit:
        s.sampler.on_exit(e.pid, e.wait_status, t);
        break;
    }
  });
}

void add_output_line(Session& s, int64_t t_ms, const char* stream, const std::string& text) {
  if (s.recording) {
    s.writer.add_event({t_ms, stream, std::nullopt, text});
  }
}

void read_marks(Session& s) {
  if (!s.marks) {
    return;
  }
  s.marks->read_new(s.clock.now_ms(), [&](const Mark& mark) {
    if (s.recording) {
      std::optional<int64_t> process_id = mark.pid ? s.sampler.process_id(*mark.pid) : std::nullopt;
      s.writer.add_event({mark.t_ms, "mark", process_id, mark.text});
    }
  });
}

void handle_child_exits(Session& s) {
  read_process_events(s);
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) {
      return;
    }
    pid_t pid = info.si_pid;
    int64_t t = s.clock.now_ms();
    if (s.recording) {
      s.sampler.on_child_exiting(pid, t);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (s.recording) {
      s.sampler.on_child_reaped(pid, status, t);
    }
    if (pid == s.root) {
      s.root_wait_status = status;
    }
  }
}

void handle_signal(Session& s, const signalfd_siginfo& info) {
  int signal = static_cast<int>(info.ssi_signo);
  if (signal == SIGCHLD) {
    handle_child_exits(s);
    return;
  }
  if (!s.run_mode) {
    s.stop_requested = true;  // attach mode: Ctrl-C or SIGTERM ends the recording
    return;
  }
  // A terminal's Ctrl-C reaches the whole foreground process group, the command
  // included (SI_KERNEL); only signals sent to us alone need passing on.
  if (info.ssi_code == SI_KERNEL) {
    return;
  }
  ::kill(s.root, signal);
  if (s.recording) {
    s.writer.add_event({s.clock.now_ms(), "signal", s.sampler.process_id(s.root),
                        std::string(signal_name(signal)) + " forwarded to the command"});
  }
}

void tick(Session& s) {
  if (!s.recording) {
    return;
  }
  read_marks(s);  // also without inotify, whose watches can run out
  read_process_events(s);
  int64_t t = s.sampler.tick(s.clock.now_ms());
  if (s.limits) {
    s.limits->tick(t);
  }
  s.writer.commit_if_due(t);
  if (s.writer.failure()) {
    print_error(s.writer.failure()->message + "; recording stopped, the command goes on");
    s.recording = false;
  }
}

bool root_done(const Session& s) {
  return s.run_mode ? s.root_wait_status.has_value() : !s.sampler.alive(s.root);
}

// Polls the tick timer and the signals until the root has ended (or, attaching, the
// user asks to stop). Returns false on a failure of the loop's own machinery.
bool sampling_loop(Session& s, int signal_fd) {
  ScopedFd timer(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
  itimerspec spec{};
  spec.it_interval.tv_sec = s.options.interval_ms / 1000;
  spec.it_interval.tv_nsec = (s.options.interval_ms % 1000) * 1'000'000;
  spec.it_value = spec.it_interval;
  if (!timer || ::timerfd_settime(timer.get(), 0, &spec, nullptr) != 0) {
    print_error(std::string("cannot start the sampling timer: ") + std::strerror(errno));
    return false;
  }
  while (!root_done(s) && !s.stop_requested) {
    std::vector<pollfd> fds = {{signal_fd, POLLIN, 0}, {timer.get(), POLLIN, 0}};
    if (s.marks && s.marks->poll_fd() >= 0) {
      fds.push_back({s.marks->poll_fd(), POLLIN, 0});
    }
    if (s.process_events) {
      fds.push_back({s.process_events->fd(), POLLIN, 0});
    }
    if (s.exit_records) {
      fds.push_back({s.exit_records->fd(), POLLIN, 0});
    }
    if (s.capture) {
      for (int fd : s.capture->poll_fds()) {
        if (fd >= 0) {
          fds.push_back({fd, POLLIN, 0});
        }
      }
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      print_error(std::string("poll: ") + std::strerror(errno));
      return false;
    }
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info{};
      while (::read(signal_fd, &info, sizeof info) == sizeof info) {
        handle_signal(s, info);
      }
    }
    if (fds[1].revents & POLLIN) {
      uint64_t expirations = 0;  // >1 when a tick overran: skip, never bunch up
      (void)!::read(timer.get(), &expirations, sizeof expirations);
      tick(s);
    }
    bool process_events_ready = false;
    for (size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents == 0) {
        continue;
      }
      if (s.marks && fds[i].fd == s.marks->poll_fd()) {
        read_marks(s);
      } else if ((s.process_events && fds[i].fd == s.process_events->fd()) ||
                 (s.exit_records && fds[i].fd == s.exit_records->fd())) {
        process_events_ready = true;
      } else if (s.capture) {
        s.capture->on_readable(fds[i].fd, s.clock.now_ms());
      }
    }
    if (process_events_ready) {
      read_process_events(s);  // once, though both sockets woke us: it drains both
    }
  }
  return true;
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

void report_command_status(int wait_status) {
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0) {
    std::fprintf(stderr, "canopy: command exited with status %d\n", WEXITSTATUS(wait_status));
  } else if (WIFSIGNALED(wait_status)) {
    int signal = WTERMSIG(wait_status);
    std::fprintf(stderr, "canopy: command killed by signal %d (%s)%s\n", signal, signal_name(signal),
                 WCOREDUMP(wait_status) ? ", core dumped" : "");
  }
}

void print_summary(const std::string& path) {
  auto reader = store::Reader::open(path);
  if (!reader) {
    print_error(reader.error().message);
    return;
  }
  auto summary = analyze::summarize(*reader, 5, /*with_growth=*/true);
  if (!summary) {
    print_error(summary.error().message);
    return;
  }
  std::fputs(report::summary_text(*summary, path).c_str(), stderr);
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

int run_record(const RecordOptions& options, std::string* complete_recording) {
  const bool run_mode = options.attach_pid == 0;
  // 0. The command's cgroup, when canopy can make one, and the limits: checked before
  // anything starts. Without a cgroup, the tree-wide limits fall back to per-process
  // stand-ins (see process_limits.h).
  if (!run_mode && options.limits.any()) {
    print_error("resource limits apply to a command canopy runs, not to one it attaches to (--pid)");
    return kExitRecorderFailed;
  }
  std::optional<CommandCgroup> cgroup;
  std::string cgroup_meta = run_mode ? "off: --no-cgroup" : "off: attached (the process stays where it is)";
  if (run_mode && options.cgroup) {
    auto created = CommandCgroup::create(options.limits);
    if (created) {
      cgroup.emplace(std::move(*created));
      cgroup_meta = cgroup->description();
    } else {
      cgroup_meta = "off: " + created.error().message;
    }
  }
  auto process_limits = cgroup ? process_limits_with_cgroup(options.limits)
                               : process_limits_without_cgroup(options.limits, "there is none (" + cgroup_meta + ")");
  if (!process_limits) {
    print_error(process_limits.error().message);
    return kExitRecorderFailed;
  }

  // 1. Block the signals we handle, before any child exists, so none is lost.
  sigset_t handled;
  sigemptyset(&handled);
  for (int signal : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    sigaddset(&handled, signal);
  }
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  ScopedFd signal_fd(::signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC));
  if (!signal_fd) {
    print_error(std::string("signalfd: ") + std::strerror(errno));
    return kExitRecorderFailed;
  }

  // 2. The kernel's process events, when it lets us listen: subscribed before the
  // command starts, so its first fork is heard.
  std::optional<probe::ProcEventSocket> process_events;
  std::string process_events_meta = "off: --no-process-events";
  if (options.process_events) {
    auto opened = probe::ProcEventSocket::open();
    if (opened) {
      process_events.emplace(std::move(*opened));
      process_events_meta = "netlink";
    } else {
      process_events_meta = "off: " + opened.error().message;
    }
  }
  // Taskstats exit records: each ended process's exact peak and CPU. Independent of
  // the process events (the kernel may grant one and not the other).
  std::optional<probe::TaskExitListener> exit_records;
  std::string exit_records_meta = "off: --no-process-events";
  if (options.process_events) {
    auto opened = probe::TaskExitListener::open(probe::read_host_info().cpu_count);
    if (opened) {
      exit_records.emplace(std::move(*opened));
      exit_records_meta = "taskstats";
    } else {
      exit_records_meta = "off: " + opened.error().message;
    }
  }
  std::optional<int64_t> forks_at_start = probe::read_forks_since_boot();

  // 3. The root: a gated child (run) or an existing process (attach). A command we
  // run gets CANOPY_MARK, and with --capture-output its stdout and stderr go through us.
  std::optional<Launch> launch;
  std::optional<MarkChannel> marks;
  std::optional<OutputCapture> capture;
  Session* session_for_output = nullptr;  // set once the recording exists
  pid_t root = options.attach_pid;
  if (run_mode) {
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
      print_error(std::string("cannot become a subreaper: ") + std::strerror(errno));
      return kExitRecorderFailed;
    }
    ChildSetup setup;
    auto channel = MarkChannel::create();
    if (!channel) {
      print_error(channel.error().message);
      return kExitRecorderFailed;
    }
    marks.emplace(std::move(*channel));
    setup.environment.push_back(std::string(kMarkVariable) + "=" + marks->path());
    if (options.capture_output) {
      auto created = OutputCapture::create([&](int64_t t_ms, const char* stream, const std::string& text) {
        if (session_for_output) {
          add_output_line(*session_for_output, t_ms, stream, text);
        }
      });
      if (!created) {
        print_error(created.error().message);
        return kExitRecorderFailed;
      }
      capture.emplace(std::move(*created));
      setup.stdout_fd = capture->child_stdout();
      setup.stderr_fd = capture->child_stderr();
      // Our own stdout may be a pipe whose reader goes away (`... | head`): that must
      // not kill the recorder; OutputCapture passes the EPIPE on to the command.
      ::signal(SIGPIPE, SIG_IGN);
    }
    setup.cgroup_fd = cgroup ? cgroup->clone_fd() : -1;  // v2: born inside it
    auto forked = Launch::fork_gated(options.command, setup);
    if (!forked) {
      print_error(forked.error().message);
      return kExitRecorderFailed;
    }
    launch.emplace(std::move(*forked));
    root = launch->pid();
    // Set on the gated child, so the command and all it starts inherit them.
    if (cgroup && cgroup->version() == 1) {
      if (auto added = cgroup->add(root); !added) {  // before it runs: nothing escapes
        print_error(added.error().message);
        return kExitRecorderFailed;
      }
    }
    if (auto applied = apply_process_limits(root, *process_limits); !applied) {
      print_error(applied.error().message);
      return kExitRecorderFailed;  // the gated child is aborted by ~Launch
    }
  } else {
    if (root == ::getpid()) {
      print_error("cannot attach to PID " + std::to_string(root) + ": that is this recorder");
      return kExitRecorderFailed;
    }
    auto files = probe::ProcessFiles::open(root);
    if (!files || !files->read_stat()) {
      print_error("cannot attach to PID " + std::to_string(root) + ": no such process");
      return kExitRecorderFailed;
    }
    if (!files->has_io() || files->read_exe().empty()) {
      print_error("cannot attach to PID " + std::to_string(root) +
                  ": permission denied (its /proc files need the same user or CAP_SYS_PTRACE)");
      return kExitRecorderFailed;
    }
  }

  // 4. The recording file.
  std::string path = options.output.empty() ? default_output_name(root) : options.output;
  auto writer = store::Writer::create(path, options.force);
  if (!writer) {
    print_error(writer.error().message);
    return kExitRecorderFailed;  // the gated child is aborted by ~Launch
  }
  probe::HostInfo host = probe::read_host_info();
  TreeSampler sampler(*writer, host, {options.pss, options.pss_interval_ms, run_mode, process_events.has_value()});
  Session session{options,        RecordingClock(), *writer, sampler, root, run_mode, std::nullopt, false, true,
                  capture ? &*capture : nullptr, marks ? &*marks : nullptr,
                  process_events ? &*process_events : nullptr, exit_records ? &*exit_records : nullptr};
  session_for_output = &session;
  LimitWatch limit_watch(options.limits, cgroup ? &*cgroup : nullptr, *writer, sampler, session.clock.now_ms());
  if (run_mode) {
    session.limits = &limit_watch;
  }
  write_start_meta(*writer, options, host, session.clock.now_ms(), root);
  if (capture) {
    writer->set_meta("output_capture", capture->kinds());
  }
  writer->set_meta("process_events", process_events_meta);
  writer->set_meta("exit_records", exit_records_meta);
  writer->set_meta("cgroup", cgroup_meta);

  // 5. Start: open the gate, then track the root (after exec, so its first sample is
  // the command's and not our fork's). Its children are found on the first tick.
  if (launch) {
    if (auto failure = launch->release()) {
      writer->finish().ok();  // close before removing
      ::unlink(path.c_str());
      print_error(failure->message);
      return failure->exit_status;
    }
    launch.reset();
    if (capture) {
      capture->close_child_ends();
    }
  }
  if (!sampler.add_root(root, session.clock.now_ms()) && !run_mode) {
    ::unlink(path.c_str());
    print_error("cannot attach to PID " + std::to_string(root) + ": it ended before the first sample");
    return kExitRecorderFailed;
  }
  raise_fd_limit();

  // 6. Sample until the root ends.
  bool loop_ok = sampling_loop(session, signal_fd.get());
  if (run_mode && !session.root_wait_status) {
    // The loop failed: do not leave the command unsupervised and unwaited.
    int status = 0;
    while (::waitpid(root, &status, 0) < 0 && errno == EINTR) {
    }
    session.root_wait_status = status;
  }

  // A timeout stops the whole tree: what outlived the root gets the rest of the grace,
  // then SIGKILL, and is reaped here (orphans are ours, as the subreaper).
  while (session.recording && limit_watch.stop_leftovers(session.clock.now_ms())) {
    ::usleep(static_cast<useconds_t>(std::min<int64_t>(options.interval_ms, 100) * 1000));
    handle_child_exits(session);
    read_process_events(session);
    sampler.tick(session.clock.now_ms());
  }
  if (limit_watch.hit() == "timeout" || limit_watch.hit() == "cpu-time") {
    handle_child_exits(session);  // the orphans a cgroup kill just ended are ours to reap
  }

  // 7. Close the recording: the output, markers and process events still on their
  // way, a last round for the survivors, then meta and checkpoint.
  if (capture) {
    capture->drain(session.clock.now_ms());
  }
  read_marks(session);
  read_process_events(session);
  int64_t end_ms = session.clock.now_ms();
  if (session.recording) {
    end_ms = sampler.tick(end_ms);
    if (session.limits) {
      session.limits->tick(end_ms);  // the limits that ended the root itself
    }
    sampler.finish(end_ms);
    write_end_meta(*writer, end_ms, sampler.process_count(), session.root_wait_status, run_mode);
    if (process_events) {
      writer->set_meta("process_events_lost", std::to_string(process_events->lost()));
    }
    if (exit_records) {
      writer->set_meta("exit_records_lost", std::to_string(exit_records->lost()));
      writer->set_meta("processes_with_exit_records", std::to_string(sampler.processes_with_exit_records()));
    }
    auto forks_at_end = probe::read_forks_since_boot();
    if (forks_at_start && forks_at_end) {
      writer->set_meta("machine_forks", std::to_string(*forks_at_end - *forks_at_start));
    }
  }
  auto finished = writer->finish();
  if (!finished) {
    print_error(finished.error().message);
  }
  if (session.root_wait_status && !options.quiet) {
    report_command_status(*session.root_wait_status);
  }
  if (finished && session.recording) {
    if (!options.quiet) {
      print_summary(absolute_path(path));
    }
    if (complete_recording) {
      *complete_recording = absolute_path(path);
    }
  }
  if (!loop_ok || (!run_mode && !finished)) {
    return kExitRecorderFailed;
  }
  return run_mode ? limit_watch.exit_status(exit_status_of(*session.root_wait_status)) : 0;
}

}  // namespace canopy::record
