#include "heap/agent.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "heap/channel.h"
#include "heap/code_ranges.h"
#include "heap/fd_identity.h"
#include "heap/profile.h"
#include "heap/rebind.h"
#include "heap/sampler.h"
#include "heap/snapshot.h"
#include "heap/stack_capture.h"
#include "heap/stand_aside.h"
#include "heap/thread_state.h"

namespace canopy::heap {
namespace {

constexpr int64_t kDefaultRateBytes = 512 * 1024;
constexpr int64_t kDefaultIntervalMs = 2000;
// Peaks come in runs (a heap that grows does so for a while): at most one snapshot
// for them per this long.
constexpr int64_t kPeakGapMs = 500;
constexpr size_t kThreadStackBytes = 256 * 1024;
// How long _exit waits for the library's thread to finish a snapshot it is sending.
constexpr long kExitLockWaitNs = 200'000'000;

char socket_path[108];  // sun_path's size
bool enabled = false;
int64_t configured_rate_bytes = 0;
int64_t interval_ms = kDefaultIntervalMs;
uint64_t loaded_monotonic_ns = 0;

Channel channel;
SnapshotSender sender;
bool sender_ready = false;
bool restart_pending = false;  // a forked child's tables still speak to the parent's connection
std::atomic<bool> thread_started{false};
std::atomic<bool> thread_running{false};   // from its start until it returns
std::atomic<pid_t> thread_tid{0};          // its kernel id, known once it runs
std::atomic<bool> thread_stopping{false};  // asked to end (agent_before_single_thread_call)
std::atomic<int> wake_fd{-1};
FdIdentity wake_identity;  // set before wake_fd, and left so: the file wake_fd names
// Why the thread was woken: a new peak (a snapshot soon), else a load to rebind after.
std::atomic<bool> woken_for_a_peak{false};
bool exiting = false;  // under channel.send_lock
// The process this state belongs to: a vfork child runs in its parent's memory, and
// must not speak for it.
pid_t owner_pid = 0;

class SendLock {
 public:
  SendLock() { pthread_mutex_lock(&channel.send_lock); }
  ~SendLock() { pthread_mutex_unlock(&channel.send_lock); }
};

int64_t parse_number(const char* text, int64_t fallback) {
  if (!text) {
    return fallback;
  }
  int64_t value = 0;
  auto [end, error] = std::from_chars(text, text + std::strlen(text), value);
  return error == std::errc() && *end == '\0' && value >= 0 ? value : fallback;
}

// With the send lock held: a connection that has said hello and named its objects.
bool ensure_connected() {
  if (channel.connected()) {
    return true;
  }
  if (!sender_ready) {
    sender_ready = sender.init();
    if (!sender_ready) {
      return false;
    }
  }
  if (restart_pending) {
    sender.restart_in_child();
    restart_pending = false;
  }
  if (!channel.connect_to(socket_path)) {
    return false;
  }
  heap_wire::Hello hello{heap_wire::kMagic,
                         heap_wire::kVersion,
                         static_cast<int32_t>(getpid()),
                         static_cast<uint32_t>(unwind_mode),
                         sampling_rate_bytes.load(),
                         loaded_monotonic_ns};
  channel.send(heap_wire::MessageType::kHello, &hello, sizeof hello);
  sender.send_modules(channel);
  return channel.connected();
}

// False once there is nothing more to send to (the recorder has gone, or the process
// is exiting).
bool snapshot(heap_wire::SnapshotReason reason) {
  SendLock locked;
  if (exiting || !ensure_connected()) {
    return false;
  }
  refresh_code_ranges();
  sender.send(channel, reason);
  return channel.connected();
}

// With the send lock held: the exit snapshot, once, on the connection there is, or on
// one opened for it when `connect`; then the thread's poll wakes, and stops.
void send_exit_snapshot(bool connect) {
  if (exiting) {
    return;
  }
  if (connect ? ensure_connected() : channel.connected()) {
    refresh_code_ranges();
    sender.send(channel, heap_wire::SnapshotReason::kExit);
  }
  exiting = true;
  channel.shutdown();
}

void obey(int command) {
  switch (command) {
    case heap_wire::kCommandDump:
      snapshot(heap_wire::SnapshotReason::kRequested);
      break;
    case heap_wire::kCommandSamplingOn:
      sampling_rate_bytes.store(configured_rate_bytes > 0 ? configured_rate_bytes : kDefaultRateBytes);
      break;
    case heap_wire::kCommandSamplingOff:
      sampling_rate_bytes.store(0);
      break;
    default:
      break;
  }
}

// The time from one snapshot to the next: the interval, or sooner for a new peak, but
// never later than the interval because a peak is pending (a heap that keeps growing
// keeps one pending).
int64_t gap_ms(bool peak_pending) {
  return peak_pending && kPeakGapMs < interval_ms ? kPeakGapMs : interval_ms;
}

// The wake-up, while its number still names the eventfd start_thread opened; else -1
// (which poll skips).
int wake_fd_if_ours() {
  int fd = wake_fd.load();
  return still_names(fd, wake_identity) ? fd : -1;
}

// Wakes the library's thread (its poll), while the wake-up is still the library's own;
// one the program has taken is let go.
void wake_the_thread() {
  int fd = wake_fd.load(std::memory_order_acquire);  // and so wake_identity, stored before it
  if (fd < 0) {
    return;
  }
  if (!still_names(fd, wake_identity)) {
    wake_fd.compare_exchange_strong(fd, -1);  // the program's now: the thread wakes on its interval
    return;
  }
  uint64_t one = 1;
  (void)!::write(fd, &one, sizeof one);
}

// Closes the wake-up, unless the program has taken its number: a forked child's copy,
// or a stopped thread's (the next thread opens its own).
void close_the_wake_up() {
  int fd = wake_fd.exchange(-1);
  if (still_names(fd, wake_identity)) {
    ::close(fd);
  }
}

void run_thread_loop() {
  {
    SendLock locked;
    if (!ensure_connected()) {
      sampling_rate_bytes.store(0);  // no recorder to hand samples to
      return;
    }
  }
  int64_t last_snapshot_ms = static_cast<int64_t>(monotonic_ns() / 1'000'000);
  bool peak_pending = false;
  for (;;) {
    if (thread_stopping.load()) {
      return;
    }
    int64_t now_ms = static_cast<int64_t>(monotonic_ns() / 1'000'000);
    int64_t due_ms = last_snapshot_ms + gap_ms(peak_pending);
    int socket = -1;
    {
      SendLock locked;
      socket = channel.fd();
    }
    if (socket < 0) {
      sampling_rate_bytes.store(0);  // the program closed the connection: nothing to send to
      return;
    }
    pollfd fds[2] = {{socket, POLLIN, 0}, {wake_fd_if_ours(), POLLIN, 0}};
    int ready = ::poll(fds, 2, static_cast<int>(due_ms > now_ms ? due_ms - now_ms : 0));
    if (ready < 0 || thread_stopping.load()) {
      continue;  // EINTR, or asked to end
    }
    rebind_if_asked_and_loaded();
    // What poll saw may be the program's by now: each read checks again.
    if (fds[0].revents) {
      for (;;) {
        int command = 0;
        {
          SendLock locked;
          command = channel.read_command();
        }
        if (command == 0) {
          break;
        }
        if (command < 0) {
          sampling_rate_bytes.store(0);
          return;
        }
        obey(command);
      }
    }
    if (fds[1].revents && still_names(fds[1].fd, wake_identity)) {
      uint64_t count;
      (void)!::read(fds[1].fd, &count, sizeof count);
      peak_pending = woken_for_a_peak.exchange(false) || peak_pending;
    }
    now_ms = static_cast<int64_t>(monotonic_ns() / 1'000'000);
    if (now_ms >= last_snapshot_ms + gap_ms(peak_pending)) {
      bool go_on = snapshot(peak_pending ? heap_wire::SnapshotReason::kPeak : heap_wire::SnapshotReason::kInterval);
      if (!go_on) {
        return;
      }
      last_snapshot_ms = now_ms;
      peak_pending = false;
    }
  }
}

void* run_thread(void*) {
  thread_state.in_hook = true;  // for life: this thread's allocations are not the program's
  thread_tid.store(static_cast<pid_t>(::syscall(SYS_gettid)));
  run_thread_loop();
  thread_running.store(false);
  return nullptr;
}

void start_thread() {
  HookScope scope;
  int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) {
    return;
  }
  fd = away_from_low_numbers(fd);
  wake_identity = fd_identity(fd);
  wake_fd.store(fd);
  // The program's signals are the program's threads' business: block them all here.
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attributes, kThreadStackBytes);
  pthread_t thread;
  thread_running.store(true);
  if (pthread_create(&thread, &attributes, run_thread, nullptr) != 0) {
    thread_running.store(false);
  }
  pthread_attr_destroy(&attributes);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

void before_fork() {
  pthread_mutex_lock(&channel.send_lock);
  pthread_mutex_lock(&profile.lock);
}

void after_fork_in_parent() {
  pthread_mutex_unlock(&profile.lock);
  pthread_mutex_unlock(&channel.send_lock);
}

// Only the forking thread lives on in the child: the library's thread is gone, and
// the socket and the wake-up are the parent's. A child that execs at once (a shell,
// make) costs nothing more; one that goes on allocating starts its own thread.
void after_fork_in_child() {
  pthread_mutex_unlock(&profile.lock);
  pthread_mutex_unlock(&channel.send_lock);
  channel.close_in_child();
  close_the_wake_up();
  restart_pending = true;
  owner_pid = getpid();
  // The child is a process image of its own from here: its start is what ties its
  // image to its process when it ends before the recorder has met it.
  loaded_monotonic_ns = monotonic_ns();
  thread_started.store(false);
  thread_running.store(false);
  thread_tid.store(0);
  rebind_after_fork_in_child();
  if (enabled && sampling_rate_bytes.load() == 0 && !thread_started.exchange(true)) {
    start_thread();  // sampling off: listen, so that the recorder can turn it on
  }
}

// Tells the recorder why this process will send no profile although the library
// loaded, on a connection of its own that ends at once; a forked child of the process
// stands aside as well, and says nothing (the recorder knows it by its parent).
void stand_aside(heap_wire::AsideReason reason) {
  SendLock locked;
  if (!channel.connect_to(socket_path)) {
    return;
  }
  heap_wire::StandingAside aside{heap_wire::kMagic, heap_wire::kVersion, static_cast<int32_t>(getpid()),
                                 static_cast<uint32_t>(reason), loaded_monotonic_ns};
  channel.send(heap_wire::MessageType::kStandingAside, &aside, sizeof aside);
  channel.shutdown();
  channel.close();
}

__attribute__((constructor)) void load() {
  HookScope scope;
  loaded_monotonic_ns = monotonic_ns();
  const char* path = std::getenv(heap_wire::kSocketVariable);
  if (!path || std::strlen(path) >= sizeof socket_path) {
    return;  // not in a recording: count nothing
  }
  std::strcpy(socket_path, path);
  if (AsideAnswer aside = why_standing_aside(); aside != kAsideNo) {
    stand_aside(aside == kAsideForSanitizer ? heap_wire::AsideReason::kSanitizer : heap_wire::AsideReason::kOwnMalloc);
    return;  // sampling stays off, and nothing listens to turn it on
  }
  enabled = true;
  owner_pid = getpid();
  configured_rate_bytes = parse_number(std::getenv(heap_wire::kRateVariable), kDefaultRateBytes);
  interval_ms = parse_number(std::getenv(heap_wire::kIntervalVariable), kDefaultIntervalMs);
  if (interval_ms <= 0) {
    interval_ms = kDefaultIntervalMs;
  }
  const char* unwind = std::getenv(heap_wire::kUnwindVariable);
  unwind_mode = unwind && std::strcmp(unwind, "dwarf") == 0 ? heap_wire::UnwindMode::kDwarf
                                                            : heap_wire::UnwindMode::kAuto;
  refresh_code_ranges();
  pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
  sampling_rate_bytes.store(configured_rate_bytes);
  thread_state.bytes_until_sample = 0;  // counted while sampling was off: draw afresh
  if (configured_rate_bytes == 0 && !thread_started.exchange(true)) {
    start_thread();
  }
}

// After the program's atexit handlers and the destructors of the objects loaded after
// this one: the heap as the program leaves it.
__attribute__((destructor)) void unload() {
  if (!enabled) {
    return;
  }
  HookScope scope;
  SendLock locked;
  send_exit_snapshot(/*connect=*/true);
}

}  // namespace

// Python's os._exit (multiprocessing's workers end by it) and a forked child's _exit
// skip the destructors that send the exit snapshot: it is sent here instead, by a
// process that has sampled, connecting if its thread has not yet (a child that
// allocates and leaves at once), as exit() does. Never from a vfork child, nor from a
// signal handler that interrupted the library's own code (its locks may be held
// below), and not at all when the library's thread does not let go of the lock soon:
// the image then ends at its last snapshot, as it did without this.
void agent_before_exit() {
  if (!enabled || thread_state.in_hook || getpid() != owner_pid) {
    return;
  }
  HookScope scope;
  timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_nsec += kExitLockWaitNs;
  if (deadline.tv_nsec >= 1'000'000'000) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1'000'000'000;
  }
  if (pthread_mutex_timedlock(&channel.send_lock, &deadline) != 0) {
    return;
  }
  send_exit_snapshot(/*connect=*/thread_started.load());
  pthread_mutex_unlock(&channel.send_lock);
}

// The kernel refuses unshare(CLONE_NEWUSER) and setns into a user namespace to a process
// with more than one thread (container tools, sandboxes: `unshare -U`, bwrap, rootless
// podman), so the library's thread must not be the second one: it is asked to end, woken,
// and waited for until the kernel has let it go (tgkill then finds no such thread). Not
// forever: a thread held in a send to a recorder that does not read is left, and the call
// fails as it would have. The next sample starts a thread again (the wake-up with it);
// with sampling off, the thread that listens for the recorder is started again at once.
void agent_before_single_thread_call() {
  if (!enabled || !thread_running.load() || getpid() != owner_pid) {
    return;
  }
  HookScope scope;
  thread_stopping.store(true);
  wake_the_thread();
  // Until it has returned, then until the kernel has let it go.
  constexpr int kWaits = 5000;  // of 1 ms: the wake-up ends a poll at once
  int waits = 0;
  auto wait_a_millisecond = [&] {
    timespec millisecond{0, 1'000'000};
    nanosleep(&millisecond, nullptr);
    return ++waits < kWaits;
  };
  while (thread_running.load() && wait_a_millisecond()) {
  }
  pid_t tid = thread_tid.load();
  bool ended = !thread_running.load();
  while (ended && tid != 0 && !(::syscall(SYS_tgkill, getpid(), tid, 0) != 0 && errno == ESRCH)) {
    ended = wait_a_millisecond();
  }
  if (!ended) {
    thread_stopping.store(false);  // it goes on; so does the program, with the kernel's refusal
    return;
  }
  thread_tid.store(0);
  close_the_wake_up();
  thread_stopping.store(false);
  thread_started.store(false);
}

// The recorder's socket is in a directory only the recorder's user may enter: a program
// that gives up its user (a daemon's worker, setuid(nobody)) or its root directory
// (chroot) could not connect after it. So it connects before, while it still may, and
// keeps the connection.
void agent_connect_while_reachable() {
  if (!enabled || getpid() != owner_pid) {
    return;
  }
  HookScope scope;
  SendLock locked;
  if (!exiting) {
    ensure_connected();
  }
}

void agent_after_single_thread_call() {
  if (enabled && getpid() == owner_pid && sampling_rate_bytes.load() == 0 && !thread_started.exchange(true)) {
    HookScope scope;
    start_thread();
  }
}

bool agent_profiling() { return enabled; }

void agent_expect_rebind() {
  if (!enabled || getpid() != owner_pid) {
    return;
  }
  HookScope scope;
  if (!thread_started.exchange(true)) {
    start_thread();
  }
  wake_the_thread();  // its poll ends at once, to wait for the load
}

void agent_on_sample(bool new_peak) {
  if (!thread_started.load(std::memory_order_relaxed) && enabled && !thread_started.exchange(true)) {
    start_thread();
  }
  if (new_peak) {
    woken_for_a_peak.store(true);
    wake_the_thread();
  }
}

}  // namespace canopy::heap
