// A workload whose every number is known, for tests and benchmarks: processes that
// touch exact amounts of memory for exact times, trees of a known shape, chosen exit
// statuses. Children are started with fork+exec of this same binary, as a build would.
//
//   canopy_workload hold MIB MS [TAG]  touch MIB MiB of anonymous memory, hold it MS ms,
//                                      then wait for any children it has
//                                      (with CANOPY_WORKLOAD_HOLD_WITH="DIR N": once
//                                      N holders have touched theirs, see below)
//   canopy_workload tree               the test tree (see run_tree)
//   canopy_workload exit N             exit with status N
//   canopy_workload signal N           kill itself with signal N
//   canopy_workload wait-sigint        print "ready", exit 42 on SIGINT (30 s timeout)
//   canopy_workload idle N MS          N children that sleep MS ms, then exit
//   canopy_workload reexec MS ARGS...  sleep MS ms, then exec itself with ARGS (same name)
//   canopy_workload rename NAME MS     name itself NAME (prctl PR_SET_NAME, no exec), sleep
//                                      MS ms
//   canopy_workload titles TITLE MS    two forked children that sleep MS ms: the first
//                                      writes TITLE over its arguments at once (as
//                                      setproctitle does), the second keeps them
//   canopy_workload churn N MS         N children one after another, each living about
//                                      MS ms and exiting with status i % 8 (a build's
//                                      compiler calls, too brief for polling)
//   canopy_workload linger MS N        sleep MS ms, then exit with status N
//   canopy_workload shared N MIB MS    N forked workers that all touch one shared MIB MiB
//                                      mapping and hold it MS ms: each one's resident
//                                      memory counts it, the machine holds it once
//   canopy_workload leak MIB STEP_MS STEPS IDLE_MS
//                                      MIB MiB more every STEP_MS ms, STEPS times, kept;
//                                      then IDLE_MS ms asleep
//   canopy_workload ramp MIB STEP_MS STEPS SPIKE_MIB SPIKE_MS
//                                      MIB MiB more every STEP_MS ms, STEPS times, kept;
//                                      then a child touches SPIKE_MIB MiB and holds it
//                                      SPIKE_MS ms: the tree's peak is STEPS * MIB +
//                                      SPIKE_MIB MiB (plus the programs themselves), for
//                                      about SPIKE_MS ms; then STEP_MS ms more, and exit
//   canopy_workload untouched MIB MS   map MIB MiB and never touch it, print "ready PID
//                                      ADDR", sleep MS ms; with 19 children asleep as
//                                      long, a tree large enough that canopy skips the
//                                      memory reads of processes that did not run. A
//                                      test writes the pages from outside
//   canopy_workload spin MS            busy for MS ms of its own CPU time
//   canopy_workload steps DIR MIB...   for each MIB in turn: wait until the file DIR/N
//                                      exists (N = 1, 2...), then touch MIB MiB more,
//                                      kept; after the last, wait for DIR/stop (at most
//                                      120 s) and exit. A test decides when it grows
//   canopy_workload wave MIB UP_MS IDLE_MS
//                                      MIB MiB touched over UP_MS ms of its own CPU, given
//                                      back, then IDLE_MS ms asleep
//   canopy_workload allocate-on-signal MIB
//                                      print "ready"; at each SIGUSR1 malloc MIB MiB more
//                                      in 4099-byte blocks (a size nothing else asks for),
//                                      kept, and print "allocated N"; exit 0 on SIGTERM
//   canopy_workload borrow DIR MIB [EXEC_MIB]
//                                      touch MIB MiB, then lend its address space twice:
//                                      to a clone (CLONE_VM, as LeakSanitizer's tracer)
//                                      that prints "lent clone PID", waits for DIR/clone
//                                      and ends; then to a vfork child that prints "lent
//                                      vfork PID", waits for DIR/vfork and execs `exit 0`
//                                      (or `hold EXEC_MIB 0`)
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* g_self = nullptr;

void sleep_ms(long ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

[[noreturn]] void exec_self(std::vector<std::string> args) {
  std::vector<char*> argv{const_cast<char*>(g_self)};
  for (auto& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  execv(g_self, argv.data());
  _exit(127);
}

pid_t spawn_self(std::vector<std::string> args) {
  pid_t pid = fork();
  if (pid == 0) {
    exec_self(std::move(args));
  }
  return pid;
}

// Set by `tree` for its holders: "READY_FD GO_FD". A holder that has touched its
// memory says so on READY_FD, then waits for GO_FD to close before its MS ms start, so
// the holders overlap for their whole MS ms however slowly a loaded machine starts them.
constexpr const char* kHoldTogetherEnv = "CANOPY_WORKLOAD_HOLD_TOGETHER";

// The same for holders a shell starts, which cannot hand them pipes: "DIR N". Each one
// that has touched its memory leaves a file named after its pid in DIR, then waits until
// N are there (for at most a minute, so that a test gone wrong still ends).
constexpr const char* kHoldWithEnv = "CANOPY_WORKLOAD_HOLD_WITH";

void wait_for_the_others_in_dir() {
  const char* spec = std::getenv(kHoldWithEnv);
  char dir[4096];
  int count = 0;
  if (!spec || std::sscanf(spec, "%4095s %d", dir, &count) != 2) {
    return;
  }
  std::string mine = std::string(dir) + "/" + std::to_string(getpid());
  int fd = open(mine.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) {
    perror("hold: ready file");
    return;
  }
  close(fd);
  for (int waited_ms = 0; waited_ms < 60000; waited_ms += 5) {
    int present = 0;
    if (DIR* d = opendir(dir)) {
      while (dirent* entry = readdir(d)) {
        present += entry->d_name[0] != '.' ? 1 : 0;
      }
      closedir(d);
    }
    if (present >= count) {
      return;
    }
    sleep_ms(5);
  }
  std::fprintf(stderr, "hold: the others never came\n");
}

void wait_for_the_others() {
  wait_for_the_others_in_dir();
  const char* fds = std::getenv(kHoldTogetherEnv);
  int ready_fd = -1;
  int go_fd = -1;
  if (!fds || std::sscanf(fds, "%d %d", &ready_fd, &go_fd) != 2) {
    return;
  }
  char byte = 1;
  if (write(ready_fd, &byte, 1) != 1) {
    perror("hold: ready");
  }
  close(ready_fd);
  while (read(go_fd, &byte, 1) > 0) {
  }
  close(go_fd);
}

int hold(long mib, long ms) {
  size_t bytes = static_cast<size_t>(mib) << 20;
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  std::memset(memory, 1, bytes);  // every page touched: resident and anonymous
  wait_for_the_others();
  sleep_ms(ms);
  // A shell that execs into a holder leaves its background jobs to it (the viewer's
  // tests: `"$W" tree & sleep 0.5; exec "$W" hold 30 1500`): the root outlives them, so
  // the recording holds the whole tree however slowly a loaded machine runs it.
  while (waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
  return 0;
}

// root
//  ├─ hold 50 1000 child
//  ├─ hold 100 1000 child
//  ├─ hold 150 1000 child
//  └─ spawn-daemon: forks an intermediate, which forks the daemon and exits after
//     300 ms; the daemon (setsid, then `hold 20 1200 daemon`) is orphaned and
//     reparented to the nearest subreaper. Root exits at about 1.6 s, after it.
//
// The three holders hold together (see wait_for_the_others): the tree's peak is all
// three at once even when a loaded machine starts the last one late.
int run_tree() {
  int ready[2];
  int go[2];
  if (pipe(ready) != 0 || pipe(go) != 0) {
    perror("pipe");
    return 1;
  }
  // The holders keep only their ends: GO's write end must be the root's alone, or
  // closing it would not release them.
  fcntl(ready[0], F_SETFD, FD_CLOEXEC);
  fcntl(go[1], F_SETFD, FD_CLOEXEC);
  setenv(kHoldTogetherEnv, (std::to_string(ready[1]) + " " + std::to_string(go[0])).c_str(), 1);
  std::vector<pid_t> children;
  for (const char* mib : {"50", "100", "150"}) {
    children.push_back(spawn_self({"hold", mib, "1000", "child"}));
  }
  unsetenv(kHoldTogetherEnv);
  close(ready[1]);
  close(go[0]);
  char byte;
  for (int holders = 0; holders < 3 && read(ready[0], &byte, 1) == 1; ++holders) {
  }
  close(ready[0]);
  close(go[1]);  // all three hold their memory: their MS ms start now
  children.push_back(spawn_self({"spawn-daemon"}));
  for (pid_t child : children) {
    waitpid(child, nullptr, 0);
  }
  sleep_ms(600);
  return 0;
}

int spawn_daemon() {
  pid_t intermediate = fork();
  if (intermediate == 0) {
    if (fork() == 0) {
      setsid();
      exec_self({"hold", "20", "1200", "daemon"});
    }
    sleep_ms(300);
    _exit(0);
  }
  waitpid(intermediate, nullptr, 0);
  return 0;
}

volatile sig_atomic_t g_sigint = 0;

int wait_sigint() {
  struct sigaction action {};
  action.sa_handler = [](int) { g_sigint = 1; };
  sigaction(SIGINT, &action, nullptr);
  std::printf("ready\n");
  std::fflush(stdout);
  for (int i = 0; i < 3000 && !g_sigint; ++i) {
    sleep_ms(10);
  }
  return g_sigint ? 42 : 1;
}

// The heap profiler's switch (tests/integration/profiler_switch_test.cpp): allocations
// that happen exactly when the test says, so that it knows which sampling state saw them.
int allocate_on_signal(long mib) {
  constexpr size_t kBlockBytes = 4099;
  sigset_t wanted;
  sigemptyset(&wanted);
  sigaddset(&wanted, SIGUSR1);
  sigaddset(&wanted, SIGTERM);
  sigprocmask(SIG_BLOCK, &wanted, nullptr);
  std::printf("ready\n");
  std::fflush(stdout);
  std::vector<void*> kept;
  for (int round = 1;; ++round) {
    int signal = 0;
    if (sigwait(&wanted, &signal) != 0 || signal == SIGTERM) {
      return 0;
    }
    for (size_t bytes = 0; bytes < static_cast<size_t>(mib) << 20; bytes += kBlockBytes) {
      void* block = std::malloc(kBlockBytes);
      static_cast<volatile char*>(block)[0] = 1;
      kept.push_back(block);
    }
    std::printf("allocated %d\n", round);
    std::fflush(stdout);
  }
}

// Two forks, as a server's workers: the first names itself by writing its title over
// the memory of its arguments, padded with NULs, as setproctitle does (what ps and
// /proc/PID/cmdline then show); the second keeps its parent's arguments.
int titles(int argc, char** argv, long ms) {
  const std::string title = argv[2];
  pid_t titled = fork();
  if (titled == 0) {
    char* end = argv[argc - 1] + std::strlen(argv[argc - 1]) + 1;
    std::memset(argv[0], 0, end - argv[0]);
    std::memcpy(argv[0], title.data(), std::min<size_t>(title.size(), end - argv[0] - 1));
    sleep_ms(ms);
    _exit(0);
  }
  pid_t untitled = fork();
  if (untitled == 0) {
    sleep_ms(ms);
    _exit(0);
  }
  waitpid(titled, nullptr, 0);
  waitpid(untitled, nullptr, 0);
  return 0;
}

int idle(long count, long ms) {
  std::vector<pid_t> children;
  for (long i = 0; i < count; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      sleep_ms(ms);
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t child : children) {
    waitpid(child, nullptr, 0);
  }
  return 0;
}

// One child at a time, so the parent's own work between them is a fork and a wait:
// a child lives MS ms (plus its exec) and the next one starts right after.
int churn(long count, long ms) {
  for (long i = 0; i < count; ++i) {
    pid_t child = spawn_self({"linger", std::to_string(ms), std::to_string(i % 8)});
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != i % 8) {
      std::fprintf(stderr, "churn: child %ld ended with status %d\n", i, status);
      return 1;
    }
  }
  return 0;
}

int shared(long workers, long mib, long ms) {
  size_t bytes = static_cast<size_t>(mib) << 20;
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  std::memset(memory, 1, bytes);
  std::vector<pid_t> children;
  for (long i = 0; i < workers; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      // Reading every page maps it into this process: resident here too, but the
      // same pages.
      volatile unsigned char sum = 0;
      for (size_t offset = 0; offset < bytes; offset += 4096) {
        sum = static_cast<unsigned char>(sum + static_cast<unsigned char*>(memory)[offset]);
      }
      sleep_ms(ms);
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t child : children) {
    waitpid(child, nullptr, 0);
  }
  return 0;
}

int untouched(long mib, long ms) {
  std::vector<pid_t> children;
  for (int i = 0; i < 19; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      sleep_ms(ms);
      _exit(0);
    }
    children.push_back(pid);
  }
  size_t bytes = static_cast<size_t>(mib) << 20;
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  std::printf("ready %d %p\n", static_cast<int>(getpid()), memory);
  std::fflush(stdout);
  sleep_ms(ms);
  for (pid_t child : children) {
    waitpid(child, nullptr, 0);
  }
  return 0;
}

// Waits until `path` exists, at most `limit_ms`; whether it does.
bool wait_for_file(const std::string& path, long limit_ms) {
  for (long waited = 0; waited < limit_ms; waited += 20) {
    if (access(path.c_str(), F_OK) == 0) {
      return true;
    }
    sleep_ms(20);
  }
  return access(path.c_str(), F_OK) == 0;
}

// Grows when a test says so (`steps`, above): each step's memory is touched only once
// its gate file exists, so a test sees each size for as long as it wants.
int steps(const std::string& dir, const std::vector<long>& mibs) {
  constexpr long kGateLimitMs = 120'000;
  for (size_t i = 0; i < mibs.size(); ++i) {
    if (!wait_for_file(dir + "/" + std::to_string(i + 1), kGateLimitMs)) {
      return 1;
    }
    size_t bytes = static_cast<size_t>(mibs[i]) << 20;
    void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
      perror("mmap");
      return 1;
    }
    std::memset(memory, 1, bytes);  // never unmapped
  }
  return wait_for_file(dir + "/stop", kGateLimitMs) ? 0 : 1;
}

// Anonymous memory touched and kept: MIB MiB more every STEP_MS ms, STEPS times, then
// IDLE_MS ms asleep holding all of it (a leak, as the growth analysis should see it).
// The steps keep to a schedule set at the start, not a sleep after each: a step that
// a loaded machine runs late does not push back the ones after it, so the rate stays
// MIB per STEP_MS. A machine loaded enough can still fall behind it, so the rate it
// kept, from the first step done to the last, is printed: "leaked at R MiB/min".
int leak(long mib, long step_ms, long steps, long idle_ms) {
  using Clock = std::chrono::steady_clock;
  size_t step_bytes = static_cast<size_t>(mib) << 20;
  const auto start = Clock::now();
  Clock::time_point first_done;
  Clock::time_point last_done;
  for (long i = 0; i < steps; ++i) {
    void* memory = mmap(nullptr, step_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
      perror("mmap");
      return 1;
    }
    std::memset(memory, 1, step_bytes);  // never unmapped
    last_done = Clock::now();
    if (i == 0) {
      first_done = last_done;
    }
    std::this_thread::sleep_until(start + std::chrono::milliseconds(step_ms * (i + 1)));
  }
  if (steps >= 2) {
    double minutes = std::chrono::duration<double, std::ratio<60>>(last_done - first_done).count();
    std::printf("leaked at %.1f MiB/min\n", static_cast<double>(mib * (steps - 1)) / minutes);
    std::fflush(stdout);
  }
  sleep_ms(idle_ms);
  return 0;
}

int ramp(long mib, long step_ms, long steps, long spike_mib, long spike_ms) {
  if (int status = leak(mib, step_ms, steps, 0); status != 0) {
    return status;
  }
  pid_t spike = spawn_self({"hold", std::to_string(spike_mib), std::to_string(spike_ms), "spike"});
  int status = 0;
  waitpid(spike, &status, 0);
  sleep_ms(step_ms);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// Busy until this process has had MS ms of CPU: on a loaded machine, wall time
// stretches but the CPU a test expects does not shrink.
void spin_ms(long ms) {
  auto cpu_ns = [] {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
  };
  int64_t until_ns = cpu_ns() + static_cast<int64_t>(ms) * 1'000'000;
  while (cpu_ns() < until_ns) {
  }
}

// A working set under load that is given back: MIB MiB touched in ten steps over
// UP_MS ms while the CPU is busy, then unmapped, then IDLE_MS ms asleep.
int wave(long mib, long up_ms, long idle_ms) {
  size_t bytes = static_cast<size_t>(mib) << 20;
  auto* memory =
      static_cast<char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (memory == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  for (size_t step = 0; step < 10; ++step) {
    std::memset(memory + step * bytes / 10, 1, bytes / 10);
    spin_ms(up_ms / 10);
  }
  munmap(memory, bytes);
  sleep_ms(idle_ms);
  return 0;
}

// For a process in another's address space: system calls only (the C library's state
// is the lender's). "lent KIND PID\n" on stdout, then a wait for DIR/KIND, polled.
void say_lent_and_wait(const char* kind, const char* dir) {
  char line[64] = "lent ";
  size_t at = 5;
  for (const char* c = kind; *c; ++c) {
    line[at++] = *c;
  }
  line[at++] = ' ';
  char digits[16];
  int count = 0;
  for (long pid = syscall(SYS_getpid); pid > 0; pid /= 10) {
    digits[count++] = static_cast<char>('0' + pid % 10);
  }
  while (count > 0) {
    line[at++] = digits[--count];
  }
  line[at++] = '\n';
  syscall(SYS_write, 1, line, at);
  char path[4096];
  size_t length = 0;
  for (const char* c = dir; *c && length < sizeof path - 16; ++c) {
    path[length++] = *c;
  }
  path[length++] = '/';
  for (const char* c = kind; *c; ++c) {
    path[length++] = *c;
  }
  path[length] = '\0';
  const timespec five_ms{0, 5'000'000};
  for (int waited = 0; waited < 24'000 && syscall(SYS_access, path, F_OK) != 0; ++waited) {  // 2 minutes at most
    syscall(SYS_nanosleep, &five_ms, nullptr);
  }
}

const char* g_borrow_dir = nullptr;

int borrowing_clone(void*) {
  say_lent_and_wait("clone", g_borrow_dir);
  syscall(SYS_exit, 0);
  return 0;
}

int borrow(const char* dir, long mib, const char* exec_mib) {
  size_t bytes = static_cast<size_t>(mib) << 20;
  auto* memory = static_cast<char*>(std::malloc(bytes));
  if (!memory) {
    return 1;
  }
  std::memset(memory, 1, bytes);
  g_borrow_dir = dir;
  std::fflush(stdout);
  constexpr size_t kStackBytes = 64 * 1024;
  static char clone_stack[kStackBytes] __attribute__((aligned(16)));
  pid_t lent = clone(borrowing_clone, clone_stack + kStackBytes, CLONE_VM | SIGCHLD, nullptr);
  if (lent < 0 || waitpid(lent, nullptr, 0) != lent) {
    perror("clone");
    return 1;
  }
  pid_t child = vfork();
  if (child == 0) {
    say_lent_and_wait("vfork", dir);
    char exit_word[] = "exit";
    char hold_word[] = "hold";
    char zero[] = "0";
    char* exit_args[] = {const_cast<char*>(g_self), exit_word, zero, nullptr};
    char* hold_args[] = {const_cast<char*>(g_self), hold_word, const_cast<char*>(exec_mib), zero, nullptr};
    execv(g_self, exec_mib ? hold_args : exit_args);
    _exit(127);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child) {
    perror("vfork");
    return 1;
  }
  std::free(memory);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char** argv) {
  g_self = "/proc/self/exe";
  static std::string self_path;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    self_path.assign(buf, static_cast<size_t>(n));
    g_self = self_path.c_str();
  }
  std::string mode = argc > 1 ? argv[1] : "";
  auto arg = [&](int i) { return i < argc ? std::atol(argv[i]) : 0L; };
  if (mode == "hold" && argc >= 4) {
    return hold(arg(2), arg(3));
  }
  if (mode == "tree") {
    return run_tree();
  }
  if (mode == "spawn-daemon") {
    return spawn_daemon();
  }
  if (mode == "exit" && argc >= 3) {
    return static_cast<int>(arg(2));
  }
  if (mode == "signal" && argc >= 3) {
    kill(getpid(), static_cast<int>(arg(2)));
    return 1;
  }
  if (mode == "wait-sigint") {
    return wait_sigint();
  }
  if (mode == "reexec" && argc >= 4) {
    sleep_ms(arg(2));
    exec_self(std::vector<std::string>(argv + 3, argv + argc));
  }
  if (mode == "rename" && argc >= 4) {
    // Names itself as a worker pool's processes do (prctl, not exec), then holds it.
    prctl(PR_SET_NAME, argv[2]);
    sleep_ms(arg(3));
    return 0;
  }
  if (mode == "titles" && argc >= 4) {
    return titles(argc, argv, arg(3));
  }
  if (mode == "idle" && argc >= 4) {
    return idle(arg(2), arg(3));
  }
  if (mode == "churn" && argc >= 4) {
    return churn(arg(2), arg(3));
  }
  if (mode == "shared" && argc >= 5) {
    return shared(arg(2), arg(3), arg(4));
  }
  if (mode == "linger" && argc >= 4) {
    sleep_ms(arg(2));
    return static_cast<int>(arg(3));
  }
  if (mode == "leak" && argc >= 6) {
    return leak(arg(2), arg(3), arg(4), arg(5));
  }
  if (mode == "ramp" && argc >= 7) {
    return ramp(arg(2), arg(3), arg(4), arg(5), arg(6));
  }
  if (mode == "untouched" && argc >= 4) {
    return untouched(arg(2), arg(3));
  }
  if (mode == "spin" && argc >= 3) {
    spin_ms(arg(2));
    return 0;
  }
  if (mode == "steps" && argc >= 4) {
    std::vector<long> mibs;
    for (int i = 3; i < argc; ++i) {
      mibs.push_back(arg(i));
    }
    return steps(argv[2], mibs);
  }
  if (mode == "wave" && argc >= 5) {
    return wave(arg(2), arg(3), arg(4));
  }
  if (mode == "allocate-on-signal" && argc >= 3) {
    return allocate_on_signal(arg(2));
  }
  if (mode == "borrow" && argc >= 4) {
    return borrow(argv[2], arg(3), argc >= 5 ? argv[4] : nullptr);
  }
  std::fprintf(stderr,
               "usage: canopy_workload hold MIB MS [TAG] | tree | exit N | signal N | wait-sigint | idle N MS | "
               "reexec MS ARGS... | rename NAME MS | churn N MS | linger MS N | shared N MIB MS | "
               "leak MIB STEP_MS STEPS IDLE_MS | ramp MIB STEP_MS STEPS SPIKE_MIB SPIKE_MS | untouched MIB MS | spin MS | steps DIR MIB... | "
               "wave MIB UP_MS IDLE_MS | allocate-on-signal MIB | borrow DIR MIB [EXEC_MIB]\n");
  return 2;
}
