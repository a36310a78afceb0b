#include "record/session.h"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "common/text.h"
#include "record/tick_schedule.h"

namespace canopy::record {

// Fork, exec and exit of the tree's processes at their exact times, before anything
// else looks at the tree: a tick, or the reaping of a child.
void read_process_events(Session& s, EventsReady ready) {
  if (!s.recording) {
    return;
  }
  auto read_exit_records = [&] {
    // Each record's own arrival time: a drain during a burst of brief processes can
    // outlast some of them, and a record stamped before its process's fork would be
    // taken for an earlier process's with the same PID (ExitRecords::on_end).
    s.exit_records->drain([&](const probe::TaskExit& e) { s.sampler.on_task_exit(e, s.clock.now_ms()); });
  };
  if (!s.process_events) {
    if (s.exit_records && ready.exit_records) {
      read_exit_records();
    }
    return;
  }
  if (!ready.process_events) {
    return;
  }
  // The kernel sends a task's exit record before its exit event, from the exiting
  // task itself. So once the events queued so far are in hand, the records of every
  // exit among them are queued too, and one read takes them all: the records need no
  // wakeup of their own (a wakeup per process less), and a fork or an exec alone
  // costs no read of them. A lost event may have been an exit: read them then too.
  const int64_t exits_before = s.process_events->exits_heard();
  const int64_t lost_before = s.process_events->lost();
  s.events_in_hand.clear();
  s.process_events->drain([&](const probe::ProcEvent& e) { s.events_in_hand.push_back(e); });
  if (s.exit_records &&
      (s.process_events->exits_heard() != exits_before || s.process_events->lost() != lost_before)) {
    read_exit_records();
  }
  for (const probe::ProcEvent& e : s.events_in_hand) {
    int64_t t = s.clock.from_monotonic_ns(e.monotonic_ns);
    switch (e.kind) {
      case probe::ProcEvent::Kind::kFork:
        s.sampler.on_fork(e.pid, e.parent, t, e.monotonic_ns);
        break;
      case probe::ProcEvent::Kind::kExec:
        s.sampler.on_exec(e.pid, t, e.monotonic_ns);
        break;
      case probe::ProcEvent::Kind::kExit:
        s.sampler.on_exit(e.pid, e.wait_status, t);
        break;
    }
  }
  if (s.process_events->lost() > 0) {
    s.sampler.process_events_lost();
  }
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
  s.marks->read_new(s.clock, [&](const Mark& mark) {
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

namespace {

// Whether the exit records' socket needs a wakeup of its own: only without process
// events, whose exit events otherwise say when to read it (read_process_events).
bool exit_records_watched(const Session& s) { return s.exit_records && !s.process_events; }

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
                        signal_name(signal) + " forwarded to the command"});
  }
}

// `ready`: the event sockets epoll reported as the tick fell due. Only those are drained
// first: one that was not had nothing queued a moment ago, and what reaches it during
// the tick is as late as what reaches it after (an empty drain was a syscall a tick).
void tick(Session& s, EventsReady ready) {
  if (!s.recording) {
    return;
  }
  if (s.marks && s.marks->poll_fd() < 0) {
    read_marks(s);  // no inotify (its watches can run out): each tick looks instead
  }
  read_process_events(s, ready);
  int64_t t = s.sampler.tick(s.clock.now_ms());
  if (s.cpu) {
    s.cpu->read_available();  // after the tick: the processes its samples name are known
  }
  if (s.limits) {
    s.limits->tick(t);
  }
  if (s.live) {
    s.live->publish(t, s.sampler, s.limits, s.heap ? s.heap->in_use() : nullptr);
  }
  const int64_t uncommitted_under_ms =
      s.live && s.live->watched() ? store::kWatchedUncommittedUnderMs : store::kUncommittedUnderMs;
  if (s.writer.commit_if_due(t, t + s.options.interval_ms, uncommitted_under_ms) && s.live) {
    s.live->committed();
  }
  if (s.writer.failure()) {
    (*s.warn)(s.writer.failure()->message + "; recording stopped, the command goes on");
    s.recording = false;
  }
}

bool root_done(const Session& s) {
  return s.run_mode ? s.root_wait_status.has_value() : !s.sampler.alive(s.root);
}

// Waits up to `timeout_ns` (nanoseconds, through epoll_pwait2 on Linux 5.11 and
// later; whole milliseconds, rounded up, before).
int wait_for_events(int epoll, epoll_event* events, int max_events, int64_t timeout_ns) {
  static bool has_pwait2 = true;
  if (has_pwait2) {
    timespec timeout{static_cast<time_t>(timeout_ns / 1'000'000'000), static_cast<long>(timeout_ns % 1'000'000'000)};
    int count = ::epoll_pwait2(epoll, events, max_events, &timeout, nullptr);
    if (count >= 0 || errno != ENOSYS) {
      return count;
    }
    has_pwait2 = false;
  }
  return ::epoll_wait(epoll, events, max_events, static_cast<int>((timeout_ns + 999'999) / 1'000'000));
}

}  // namespace

Status sampling_loop(Session& s, int signal_fd) {
  TickSchedule schedule(static_cast<int64_t>(probe::now_monotonic_ns()), s.options.interval_ms * 1'000'000,
                        s.run_mode ? TickSchedule::FirstTick::kAfterOneInterval : TickSchedule::FirstTick::kAtStart);
  // epoll, not poll: a build wakes the recorder several times per process it starts,
  // and poll registered with and left every file's wait queue on each wakeup.
  ScopedFd epoll(::epoll_create1(EPOLL_CLOEXEC));
  // Each descriptor is registered with what it is, which epoll hands back.
  enum Source : uint32_t { kSignals, kMarks, kProcessEvents, kExitRecords, kOutput, kHeap, kCpu, kSources };
  auto watch = [&](int fd, Source source) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u32 = source;
    return fd < 0 || ::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &event) == 0;
  };
  // A captured stream's descriptor leaves the set by itself when it is closed at EOF:
  // ours are all close-on-exec, and nothing is forked while the loop runs, so that
  // close drops the last reference.
  bool watching = epoll && watch(signal_fd, kSignals) &&
                  watch(s.marks ? s.marks->poll_fd() : -1, kMarks) &&
                  watch(s.process_events ? s.process_events->fd() : -1, kProcessEvents) &&
                  watch(exit_records_watched(s) ? s.exit_records->fd() : -1, kExitRecords) &&
                  watch(s.heap ? s.heap->poll_fd() : -1, kHeap);
  if (s.capture) {
    for (int fd : s.capture->poll_fds()) {
      watching = watching && watch(fd, kOutput);
    }
  }
  if (s.cpu) {
    for (int fd : s.cpu->poll_fds()) {  // a ring a quarter full, between two ticks
      watching = watching && watch(fd, kCpu);
    }
  }
  if (!watching) {
    return Error{std::string("epoll: ") + std::strerror(errno)};
  }
  while (!root_done(s) && !s.stop_requested) {
    epoll_event events[8];
    int count =
        wait_for_events(epoll.get(), events, 8, schedule.ns_until_due(static_cast<int64_t>(probe::now_monotonic_ns())));
    if (count < 0) {
      if (errno == EINTR) {
        continue;
      }
      return Error{std::string("epoll_wait: ") + std::strerror(errno)};
    }
    bool ready[kSources] = {};
    for (int i = 0; i < count; ++i) {
      ready[events[i].data.u32] = true;
    }
    const int64_t now_ns = static_cast<int64_t>(probe::now_monotonic_ns());
    const bool tick_due = schedule.due(now_ns);
    // In this order: marks, then a reaped child's figures, then a tick, then what came
    // besides. Marks first: a mark is written before its caller can end, so read after
    // that end (both ready at one wakeup of a busy machine), it could not name its caller.
    if (ready[kMarks]) {
      read_marks(s);
    }
    if (ready[kSignals]) {
      signalfd_siginfo info{};
      while (::read(signal_fd, &info, sizeof info) == sizeof info) {
        handle_signal(s, info);
      }
    }
    const EventsReady sockets{ready[kProcessEvents], ready[kExitRecords]};
    if (tick_due) {
      tick(s, sockets);
      // After the tick: one that overran skips what it missed, never bunching up.
      schedule.take(static_cast<int64_t>(probe::now_monotonic_ns()));
      // Attach mode's --duration ends the recording at the first tick at or after it.
      const auto duration_ms = s.options.attach_duration_ms;
      if (!s.run_mode && duration_ms && s.clock.now_ms() - s.clock.start_ms() >= *duration_ms) {
        s.stop_requested = true;
      }
    }
    if ((sockets.process_events || sockets.exit_records) && !tick_due) {
      read_process_events(s, sockets);  // else the tick drained them
    }
    if (ready[kOutput]) {
      s.capture->read_available(s.clock.now_ms());  // both streams, in order
    }
    if (ready[kHeap] && s.recording) {
      s.heap->read_available();
    }
    if (ready[kCpu] && !tick_due && s.recording) {
      s.cpu->read_available();
    }
  }
  return Ok{};
}

}  // namespace canopy::record
