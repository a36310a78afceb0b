// The record pass list: check the output, start or attach, sample until the tree's
// root ends, close the recording, print the summary, exit with the command's status.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
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
#include "record/event_filter.h"
#include "record/launcher.h"
#include "record/limit_watch.h"
#include "record/process_limits.h"
#include "record/mark_channel.h"
#include "record/options.h"
#include "record/output_capture.h"
#include "record/recording_meta.h"
#include "record/session.h"
#include "record/tree_sampler.h"
#include "report/summary_format.h"
#include "store/reader.h"

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

void report_command_status(int wait_status) {
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0) {
    print_error("command exited with status " + std::to_string(WEXITSTATUS(wait_status)));
  } else if (WIFSIGNALED(wait_status)) {
    int signal = WTERMSIG(wait_status);
    print_error("command killed by signal " + std::to_string(signal) + " (" + signal_name(signal) + ")" +
                (WCOREDUMP(wait_status) ? ", core dumped" : ""));
  }
}

void print_summary(const std::string& path) {
  // The recorder has just written and closed this file, so it skips the up-front check
  // of every page that a file from elsewhere gets: `canopy report` of a 54 MB recording
  // spent 43% of its instructions there. Here they would be spent while the user waits
  // for the prompt. Damage would still surface, from the read that meets it.
  auto reader = store::Reader::open(path, store::Reader::Verify::kWhileReading);
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
  // Only the tree's events and records, where the kernel can tell (see EventFilter).
  std::optional<EventFilter> event_filter;
  if (process_events) {
    event_filter.emplace(*process_events, exit_records ? &*exit_records : nullptr, options.attach_pid);
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
  TreeSampler sampler(*writer, host,
                      {options.pss, options.pss_interval_ms, run_mode, process_events.has_value(),
                       cgroup ? &*cgroup : nullptr});
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
  if (event_filter) {
    event_filter->write_start_meta(*writer);
  }
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
  if (marks) {
    marks->stop_watching();  // no more wakeups: its release overlaps the finishing below
  }
  read_marks(session);
  read_process_events(session);
  int64_t end_ms = session.clock.now_ms();
  if (session.recording) {
    end_ms = sampler.tick(end_ms);
    if (session.limits) {
      session.limits->last_tick(end_ms);  // the limits that ended the root itself
    }
    sampler.finish(end_ms);
    write_end_meta(*writer, end_ms, sampler.process_count(), session.root_wait_status, run_mode);
    if (process_events) {
      writer->set_meta("process_events_lost", std::to_string(process_events->lost()));
      event_filter->write_end_meta(*writer);
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
