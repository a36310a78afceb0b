// The heap profiler's ground truth: a program whose allocations the tests know.
//
//   heap_workload parent CHILD   leak sites A and B, a bounded cache, a peak given
//                                back, eight churning threads, exceptions thrown
//                                through allocating frames; then fork and exec CHILD
//   heap_workload child          leak site C (this source built without frame pointers)
//   heap_workload fork-child     forks, and the child (no exec) allocates and exits
//   heap_workload fork-underscore-exit
//                                forks, and the child allocates one 128 KiB block and
//                                leaves by _exit at once
//   heap_workload failed-realloc one block of kReallocBlockBytes, which a realloc too large
//                                for any allocator fails to move; kept to its exit()
//   heap_workload unrolled       leak site E in four rounds, through four calls to malloc
//                                on one line, as a compiler that unrolled a loop leaves
//                                them: four return addresses, one line of source
//   heap_workload teardown       leak site D, which a static destructor frees at exit
//                                (as an interpreter's finalization frees what it held)
//   heap_workload underscore-exit
//                                leak site D, with a vfork child that leaves by _exit
//                                at once after the first round; then out by _exit, as
//                                Python's os._exit leaves
//   heap_workload jit            leak site J, allocated through a copy of jit_source
//                                placed in anonymous memory, as a JIT places its code,
//                                and named `jit_alloc` in /tmp/perf-PID.map, which it
//                                leaves behind as V8 does
//   heap_workload close-all      as a daemon does once the profiler has connected: closes
//                                every descriptor it did not open, and is given the
//                                profiler's numbers for sockets of its own; exits 0 when
//                                the profiler's descriptors were above the program's next
//                                one, and the profiler, here and in a forked child, never
//                                read, wrote or closed the program's
//   heap_workload user-namespace once the profiler's thread runs, enters a new user
//                                namespace (as `unshare -U` does: the kernel refuses it to a
//                                process of more than one thread); then site D's blocks,
//                                kept to the end
//   heap_workload drop-user      (as root) forks a child that gives up its user for
//                                nobody's, as a daemon's worker does, then allocates site
//                                D's blocks and keeps them to its exit()
//   heap_workload chroot DIR     (as root) forks a child that makes DIR its root, as a
//                                daemon's jail does, then allocates site D's blocks and
//                                keeps them to its exit()
//   heap_workload few-large       kFewLargeBlocks blocks of kFewLargeBytes at each of two
//                                sites, allocated at once and kept to its exit(): a short
//                                process whose heap is a few large blocks, each sure to be
//                                sampled, too few at each site for a verdict
//   heap_workload hold BYTES N READY
//                                N blocks of BYTES bytes, allocated and kept; then its
//                                PID into the file READY (written whole, by a rename),
//                                and asleep until killed (10 minutes at most)
//
// A leak site's blocks are all of one size, which no other allocation of the program
// has, so a test finds a site's sampled allocations by their size alone. The sizes and
// counts are the tests' truth (kSites); leaked blocks stay reachable from `leaked`, so
// that they are alive at exit.
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Site {
  size_t block_bytes;
  int blocks;
};
// Also in tests/integration/heap_sites.h.
constexpr Site kSiteA{1001, 3700};
constexpr Site kSiteB{3003, 1550};
constexpr Site kSiteC{5005, 1140};
constexpr Site kSiteD{2002, 2080};
constexpr Site kSiteE{4004, 1312};
constexpr Site kSiteJ{3333, 1450};
constexpr size_t kForkBlockBytes = 128 * 1024;  // also in tests/integration/heap_test.cpp
constexpr size_t kReallocBlockBytes = 100 * 1000;  // also in tests/integration/heap_test.cpp
// Also in tests/integration/heap_verdict_test.cpp.
constexpr size_t kFewLargeBytes = 16 * 1024 * 1024;
constexpr int kFewLargeBlocks = 4;
constexpr int kRounds = 4;  // each site leaks a quarter of its blocks per round
// Between rounds: longer than two of the tests' snapshot intervals (--heap-interval
// 100ms), so that snapshots see each round's growth apart even on a loaded machine.
constexpr useconds_t kPause = 250 * 1000;

std::vector<void*> leaked;

__attribute__((noinline)) void leak_site_a(int count) {
  for (int i = 0; i < count; ++i) {
    void* block = std::malloc(kSiteA.block_bytes);
    std::memset(block, 1, kSiteA.block_bytes);
    leaked.push_back(block);
  }
}

__attribute__((noinline)) void leak_site_b(int count) {
  for (int i = 0; i < count; ++i) {
    char* block = new char[kSiteB.block_bytes];
    std::memset(block, 2, kSiteB.block_bytes);
    leaked.push_back(block);
  }
}

__attribute__((noinline)) void leak_site_c(int count) {
  for (int i = 0; i < count; ++i) {
    void* block = std::calloc(1, kSiteC.block_bytes);
    leaked.push_back(block);
  }
}

// Site D's blocks, kept to the end of the program and freed after main returns.
struct FreedAtExit {
  std::vector<void*> blocks;
  ~FreedAtExit() {
    for (void* block : blocks) {
      std::free(block);
    }
  }
};
FreedAtExit freed_at_exit;

__attribute__((noinline)) void leak_until_exit(int count) {
  for (int i = 0; i < count; ++i) {
    void* block = std::malloc(kSiteD.block_bytes);
    std::memset(block, 6, kSiteD.block_bytes);
    freed_at_exit.blocks.push_back(block);
  }
}

// A cache of 200 entries that replaces its oldest: its memory plateaus.
__attribute__((noinline)) void bounded_cache(int operations) {
  static std::vector<void*> cache(200, nullptr);
  static size_t next = 0;
  for (int i = 0; i < operations; ++i) {
    std::free(cache[next]);
    cache[next] = std::malloc(2000);
    next = (next + 1) % cache.size();
  }
}

// 24 MiB in 6 KiB blocks, touched, held for longer than the tests' snapshot interval
// (so that a snapshot sees it), then all given back.
__attribute__((noinline)) void temporary_peak() {
  std::vector<void*> blocks;
  for (int i = 0; i < 4096; ++i) {
    blocks.push_back(std::malloc(6144));
    std::memset(blocks.back(), 3, 6144);
  }
  usleep(kPause);
  for (void* block : blocks) {
    std::free(block);
  }
}

__attribute__((noinline)) void throw_from_deep(int depth) {
  std::string held(100 + static_cast<size_t>(depth), 'x');  // freed as the exception passes
  if (depth == 0) {
    throw std::runtime_error("through allocating frames: " + held);
  }
  throw_from_deep(depth - 1);
}

void exceptions(int count) {
  for (int i = 0; i < count; ++i) {
    try {
      throw_from_deep(8);
    } catch (const std::exception&) {
    }
  }
}

void churn_threads() {
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 50000; ++i) {
        void* block = std::malloc(512);
        std::memset(block, 4, 64);
        std::free(block);
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
}

int run_child() {
  leaked.reserve(static_cast<size_t>(kSiteC.blocks));
  for (int round = 0; round < kRounds; ++round) {
    leak_site_c(kSiteC.blocks / kRounds + (round == 0 ? kSiteC.blocks % kRounds : 0));
    usleep(kPause);
  }
  return 0;
}

// Site D in its rounds, kPause apart; `after_round(round)` runs after each.
template <typename AfterRound>
void grow_site_d(AfterRound after_round) {
  freed_at_exit.blocks.reserve(static_cast<size_t>(kSiteD.blocks));
  for (int round = 0; round < kRounds; ++round) {
    leak_until_exit(kSiteD.blocks / kRounds);
    usleep(kPause);
    after_round(round);
  }
}

void* site_e_blocks[kSiteE.blocks];

// One line, four calls: a compiler that unrolls a loop of one call leaves the same.
#define FOUR_SITE_E_BLOCKS(at)                                                                   \
  site_e_blocks[(at)] = std::malloc(kSiteE.block_bytes), site_e_blocks[(at) + 1] = std::malloc(kSiteE.block_bytes), \
  site_e_blocks[(at) + 2] = std::malloc(kSiteE.block_bytes), site_e_blocks[(at) + 3] = std::malloc(kSiteE.block_bytes)

__attribute__((noinline)) void leak_site_unrolled(int from, int count) {
  for (int i = from; i < from + count; i += 4) {
    FOUR_SITE_E_BLOCKS(i);
  }
}

int run_unrolled() {
  const int per_round = kSiteE.blocks / kRounds;
  for (int round = 0; round < kRounds; ++round) {
    leak_site_unrolled(round * per_round, per_round);
    usleep(kPause);
  }
  // Read, so that the compiler keeps the calls: blocks never used would not be made.
  return std::count(std::begin(site_e_blocks), std::end(site_e_blocks), nullptr) == 0 ? 0 : 1;
}

int run_teardown() {
  grow_site_d([](int) {});
  return 0;
}

int run_underscore_exit() {
  grow_site_d([](int round) {
    if (round == 0) {
      // The profiler is reporting by now; the child runs in this process's memory, and
      // must not speak for it.
      pid_t child = vfork();
      if (child == 0) {
        _exit(0);
      }
      int status = 0;
      waitpid(child, &status, 0);
    }
  });
  _exit(0);  // no destructor runs: site D is held at the end
}

int run_parent(const char* child) {
  leaked.reserve(static_cast<size_t>(kSiteA.blocks + kSiteB.blocks));
  for (int round = 0; round < kRounds; ++round) {
    leak_site_a(kSiteA.blocks / kRounds + (round == 0 ? kSiteA.blocks % kRounds : 0));
    leak_site_b(kSiteB.blocks / kRounds + (round == 0 ? kSiteB.blocks % kRounds : 0));
    bounded_cache(2000);
    usleep(kPause);
  }
  temporary_peak();
  churn_threads();
  exceptions(1000);
  pid_t pid = fork();
  if (pid == 0) {
    execl(child, child, "child", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// A child that is the parent's program (no exec) and has a heap image of its own. The
// parent sleeps first, so that its profiler's start and the fork are apart by at least
// that long, whatever the machine's speed.
int run_fork_child() {
  usleep(kPause);
  pid_t pid = fork();
  if (pid == 0) {
    leak_site_c(kSiteC.blocks);
    std::exit(0);  // exit(), not _exit: the profiler's exit snapshot
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// A forked child that allocates one block and leaves by _exit at once: before the
// thread its first sample started has connected.
int run_fork_underscore_exit() {
  pid_t pid = fork();
  if (pid == 0) {
    leaked.push_back(std::malloc(kForkBlockBytes));
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// Two sites alike, so that the blocks are two stacks' of four samples each.
__attribute__((noinline)) void few_large_site_a() {
  for (int i = 0; i < kFewLargeBlocks; ++i) {
    leaked.push_back(std::malloc(kFewLargeBytes));
  }
}

__attribute__((noinline)) void few_large_site_b() {
  for (int i = 0; i < kFewLargeBlocks; ++i) {
    leaked.push_back(std::malloc(kFewLargeBytes));
  }
}

int run_few_large() {
  leaked.reserve(2 * kFewLargeBlocks);
  few_large_site_a();
  few_large_site_b();
  for (void* block : leaked) {
    if (block == nullptr) {
      std::fprintf(stderr, "heap_workload few-large: out of memory\n");
      return 1;
    }
  }
  return 0;
}

int run_failed_realloc() {
  void* block = std::malloc(kReallocBlockBytes);
  volatile size_t too_large = PTRDIFF_MAX;  // glibc refuses more than PTRDIFF_MAX at once
  if (!block || std::realloc(block, too_large + 1) != nullptr) {
    std::fprintf(stderr, "failed-realloc: the realloc did not fail\n");
    return 1;
  }
  leaked.push_back(block);
  return 0;
}

// In a section of its own, so that its bytes can be copied whole: it calls the
// allocator through a register, nothing that refers to where it runs.
extern "C" __attribute__((noinline, section("canopy_jit_source"))) void* jit_source(void* (*allocate)(size_t),
                                                                                   size_t bytes) {
  void* block = allocate(bytes);
  __asm__ volatile("" : "+r"(block));  // not a tail call: the copy stays on the stack
  return block;
}
extern "C" const unsigned char __start_canopy_jit_source[];
extern "C" const unsigned char __stop_canopy_jit_source[];

int run_jit() {
  const size_t size = static_cast<size_t>(__stop_canopy_jit_source - __start_canopy_jit_source);
  const size_t pages = (size + 4095) & ~size_t{4095};
  void* code = mmap(nullptr, pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  std::memcpy(code, __start_canopy_jit_source, size);
  if (mprotect(code, pages, PROT_READ | PROT_EXEC) != 0) {
    std::perror("mprotect");
    return 1;
  }
  const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  FILE* map = std::fopen(path.c_str(), "w");
  if (!map) {
    std::perror(path.c_str());
    return 1;
  }
  std::fprintf(map, "%lx %zx jit_alloc\n", reinterpret_cast<unsigned long>(code), size);
  std::fclose(map);
  auto allocate_through = reinterpret_cast<void* (*)(void* (*)(size_t), size_t)>(code);
  for (int i = 0; i < kSiteJ.blocks; ++i) {
    void* block = allocate_through(std::malloc, kSiteJ.block_bytes);
    std::memset(block, 6, kSiteJ.block_bytes);
    leaked.push_back(block);
  }
  return 0;
}

// Holds a heap of a known size for as long as a test looks (tests/integration/
// metrics_test.cpp): nothing is allocated or freed after READY appears.
int run_hold(const char* block_bytes_text, const char* blocks_text, const char* ready_path) {
  const long block_bytes = std::strtol(block_bytes_text, nullptr, 10);
  const long blocks = std::strtol(blocks_text, nullptr, 10);
  if (block_bytes <= 0 || blocks <= 0) {
    std::fprintf(stderr, "heap_workload hold: BYTES and N must be positive\n");
    return 2;
  }
  leaked.reserve(static_cast<size_t>(blocks));
  for (long i = 0; i < blocks; ++i) {
    void* block = std::malloc(static_cast<size_t>(block_bytes));
    std::memset(block, 5, static_cast<size_t>(block_bytes));
    leaked.push_back(block);
  }
  const std::string temporary = std::string(ready_path) + ".tmp";
  FILE* ready = std::fopen(temporary.c_str(), "w");
  if (!ready) {
    std::perror("heap_workload hold: ready file");
    return 1;
  }
  std::fprintf(ready, "%d\n", static_cast<int>(getpid()));
  std::fclose(ready);
  if (std::rename(temporary.c_str(), ready_path) != 0) {
    std::perror("heap_workload hold: ready file");
    return 1;
  }
  for (int second = 0; second < 600; ++second) {
    sleep(1);
  }
  return 0;
}

// The descriptor whose link in /proc/self/fd starts with `target` ("socket:"), or -1.
int descriptor_to(const char* target) {
  DIR* directory = opendir("/proc/self/fd");
  if (!directory) {
    return -1;
  }
  int found = -1;
  while (dirent* entry = readdir(directory)) {
    char link[64] = {};
    const std::string path = std::string("/proc/self/fd/") + entry->d_name;
    if (readlink(path.c_str(), link, sizeof link - 1) > 0 && std::strncmp(link, target, std::strlen(target)) == 0) {
      found = std::atoi(entry->d_name);
    }
  }
  closedir(directory);
  return found;
}

int threads() {
  DIR* directory = opendir("/proc/self/task");
  int count = 0;
  while (dirent* entry = directory ? readdir(directory) : nullptr) {
    count += entry->d_name[0] != '.';
  }
  if (directory) {
    closedir(directory);
  }
  return count;
}

// A socket of the program's own at `number`, with "host\n" waiting to be read from it;
// its peer (returned) at 200 or above, out of the way of the other number.
int place_socket_at(int number) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) {
    return -1;
  }
  int peer = fcntl(pair[1], F_DUPFD, 200);
  close(pair[1]);
  if (pair[0] != number) {
    dup2(pair[0], number);
    close(pair[0]);
  }
  return write(peer, "host\n", 5) == 5 ? peer : -1;
}

// What the profiler did to the program's socket at `number` and its peer: nothing, or
// a line saying what.
bool left_alone(const char* who, int number, int peer) {
  if (fcntl(number, F_GETFD) < 0) {
    std::fprintf(stderr, "%s: descriptor %d was closed\n", who, number);
    return false;
  }
  char bytes[64];
  ssize_t waiting = recv(number, bytes, sizeof bytes, MSG_PEEK | MSG_DONTWAIT);
  if (waiting != 5) {
    std::fprintf(stderr, "%s: descriptor %d has %zd of its 5 bytes left\n", who, number, waiting);
    return false;
  }
  ssize_t written = recv(peer, bytes, sizeof bytes, MSG_PEEK | MSG_DONTWAIT);
  if (written >= 0) {
    std::fprintf(stderr, "%s: %zd bytes were written to descriptor %d\n", who, written, number);
    return false;
  }
  return true;
}

int run_close_all() {
  // The profiler connects, from a thread of its own, on its first sample.
  int socket = -1;
  int wake = -1;
  for (int round = 0; round < 1000 && (socket < 0 || wake < 0); ++round) {
    for (int i = 0; i < 10; ++i) {
      leaked.push_back(std::malloc(4000));
    }
    usleep(10 * 1000);
    socket = descriptor_to("socket:");
    wake = descriptor_to("anon_inode:[eventfd]");
  }
  if (socket < 0 || wake < 0) {
    std::fprintf(stderr, "close-all: the profiler never connected\n");
    return 3;
  }
  // The profiler's descriptors sit above the numbers the program is given next (with
  // stdin closed, the next is 0), so that it gets what it would get without them.
  int next = open("/dev/null", O_RDONLY);
  if (next > std::min(socket, wake)) {
    std::fprintf(stderr, "close-all: the profiler holds descriptor %d, below the program's next, %d\n",
                 std::min(socket, wake), next);
    return 1;
  }
  close(next);
  close_range(3, ~0U, 0);
  int socket_peer = place_socket_at(socket);
  int wake_peer = place_socket_at(wake);
  if (socket_peer < 0 || wake_peer < 0) {
    std::perror("close-all: socketpair");
    return 3;
  }
  // A heap that keeps growing: the profiler wants to wake its thread, and its thread
  // wants to send snapshots. That thread ends at its next snapshot, when it finds its
  // socket gone; a profiler that does not notice does its harm in the 30 s given here.
  for (int round = 0; round < 3000 && threads() > 1; ++round) {
    for (int i = 0; i < 5; ++i) {
      leaked.push_back(std::malloc(4000));
    }
    usleep(10 * 1000);
  }
  pid_t pid = fork();
  if (pid == 0) {
    leaked.push_back(std::malloc(100000));
    bool alone = left_alone("child", socket, socket_peer) && left_alone("child", wake, wake_peer);
    _exit(alone ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  bool alone = left_alone("parent", socket, socket_peer) && left_alone("parent", wake, wake_peer);
  return alone && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int run_user_namespace() {
  for (int round = 0; round < 1000 && threads() < 2; ++round) {
    for (int i = 0; i < 10; ++i) {
      leaked.push_back(std::malloc(4000));
    }
    usleep(10 * 1000);
  }
  if (threads() < 2) {
    std::fprintf(stderr, "user-namespace: the profiler's thread never started\n");
    return 3;
  }
  if (unshare(CLONE_NEWUSER) != 0) {
    std::perror("user-namespace: unshare(CLONE_NEWUSER)");
    return 1;
  }
  for (int i = 0; i < kSiteD.blocks; ++i) {  // site D's blocks, alive at exit
    leaked.push_back(std::malloc(kSiteD.block_bytes));
  }
  return 0;
}

// A forked child that `leaves` (false: it failed, said why), then allocates site D's
// blocks and keeps them to its exit().
template <typename Leave>
int run_child_that_leaves(Leave leave) {
  pid_t pid = fork();
  if (pid == 0) {
    if (!leave()) {
      _exit(1);
    }
    for (int i = 0; i < kSiteD.blocks; ++i) {
      leaked.push_back(std::malloc(kSiteD.block_bytes));
    }
    std::exit(0);  // exit(), not _exit: the profiler's exit snapshot
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int run_drop_user() {
  return run_child_that_leaves([] {
    constexpr uid_t kNobody = 65534;
    if (setgid(kNobody) != 0 || setuid(kNobody) != 0) {
      std::perror("drop-user: setuid");
      return false;
    }
    return true;
  });
}

int run_chroot(const char* directory) {
  return run_child_that_leaves([directory] {
    if (chroot(directory) != 0 || chdir("/") != 0) {
      std::perror("chroot");
      return false;
    }
    return true;
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "parent") == 0) {
    return run_parent(argv[2]);
  }
  if (argc == 2 && std::strcmp(argv[1], "child") == 0) {
    return run_child();
  }
  if (argc == 2 && std::strcmp(argv[1], "fork-child") == 0) {
    return run_fork_child();
  }
  if (argc == 2 && std::strcmp(argv[1], "fork-underscore-exit") == 0) {
    return run_fork_underscore_exit();
  }
  if (argc == 2 && std::strcmp(argv[1], "failed-realloc") == 0) {
    return run_failed_realloc();
  }
  if (argc == 2 && std::strcmp(argv[1], "few-large") == 0) {
    return run_few_large();
  }
  if (argc == 2 && std::strcmp(argv[1], "unrolled") == 0) {
    return run_unrolled();
  }
  if (argc == 2 && std::strcmp(argv[1], "teardown") == 0) {
    return run_teardown();
  }
  if (argc == 2 && std::strcmp(argv[1], "underscore-exit") == 0) {
    return run_underscore_exit();
  }
  if (argc == 2 && std::strcmp(argv[1], "jit") == 0) {
    return run_jit();
  }
  if (argc == 3 && std::strcmp(argv[1], "chroot") == 0) {
    return run_chroot(argv[2]);
  }
  if (argc == 2 && std::strcmp(argv[1], "drop-user") == 0) {
    return run_drop_user();
  }
  if (argc == 2 && std::strcmp(argv[1], "user-namespace") == 0) {
    return run_user_namespace();
  }
  if (argc == 2 && std::strcmp(argv[1], "close-all") == 0) {
    return run_close_all();
  }
  if (argc == 5 && std::strcmp(argv[1], "hold") == 0) {
    return run_hold(argv[2], argv[3], argv[4]);
  }
  std::fprintf(stderr,
               "usage: heap_workload parent CHILD | child | fork-child | fork-underscore-exit | failed-realloc | "
               "few-large | unrolled | teardown | underscore-exit | jit | "
               "close-all | user-namespace | drop-user | chroot DIR | hold BYTES N READY\n");
  return 2;
}
