// The kernel floor: the least CPU that sampling a tree through /proc can cost, to put
// canopy's own cost in proportion (see bench/README.md).
//
//   canopy_bench_floor [-i MS] [-n CHILDREN] [-f stat,statm] [-s statm] [--reopen] -- CMD ARGS
//   canopy_bench_floor --events [-i MS] -- CMD ARGS
//
// Runs CMD, waits until it has CHILDREN children, then every MS ms reads the files -f
// of CMD and of each of those children, and once a second the files -s, until CMD
// ends. By default every file is opened once and read with pread on each tick, as
// canopy does; --reopen opens, reads and closes it on each tick instead, as tools that
// re-walk /proc do. With --events the tree is not fixed: it is followed through the
// kernel's process events, each process is also read at its fork, exec and exit, and
// what a tick reads follows canopy's rules (floor_events.cpp). The text is read and not parsed: this is the kernel's share,
// plus one loop. At the end it prints one line
//
//   process_reads=40200 ticks=200 processes=201 cpu_user_ns=1234000 cpu_system_ns=56789000
//
// where a process-read is one tick's read of all the files of one process, processes
// is how many the tree had, and the CPU figures are this program's own getrusage
// (RUSAGE_SELF) over its whole life.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/scoped_resource.h"
#include "floor.h"

namespace {

using canopy::ScopedFd;
using canopy::bench::FloorOptions;
using canopy::bench::read_once;
using canopy::bench::rusage_ns;

struct Process {
  pid_t pid = 0;
  std::vector<std::string> paths;  // /proc/PID/FILE, for --reopen
  std::vector<ScopedFd> fds;       // kept open otherwise
  bool gone = false;
};

void usage() {
  std::fprintf(stderr,
               "usage: canopy_bench_floor [-i MS] [-n CHILDREN] [-f stat,statm] [-s statm] [--reopen] -- CMD ARGS\n"
               "       canopy_bench_floor --events [-i MS] -- CMD ARGS\n");
}

std::optional<int64_t> parse_int(std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) {
      return parts;
    }
    start = end + 1;
  }
}

std::optional<FloorOptions> parse_options(int argc, char** argv) {
  FloorOptions options;
  bool fixed_tree_option = false;  // -n, -f, -s or --reopen: not for --events
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    fixed_tree_option = fixed_tree_option || arg == "-n" || arg == "-f" || arg == "-s" || arg == "--reopen";
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--reopen") {
      options.reopen = true;
      continue;
    }
    if (arg == "--events") {
      options.events = true;
      continue;
    }
    if (i + 1 >= argc) {
      return std::nullopt;
    }
    std::string_view value = argv[++i];
    if (arg == "-i") {
      auto ms = parse_int(value);
      if (!ms || *ms < 1) {
        return std::nullopt;
      }
      options.interval_ms = *ms;
    } else if (arg == "-n") {
      auto n = parse_int(value);
      if (!n || *n < 0) {
        return std::nullopt;
      }
      options.children = *n;
    } else if (arg == "-f") {
      options.files = split(value, ',');
    } else if (arg == "-s") {
      options.files_each_second = split(value, ',');
    } else {
      return std::nullopt;
    }
  }
  if (i >= argc || (options.events && fixed_tree_option)) {
    return std::nullopt;
  }
  for (; i < argc; ++i) {
    options.command.push_back(argv[i]);
  }
  options.command.push_back(nullptr);
  return options;
}

void sleep_ms(int64_t ms) {
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1'000'000};
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

// /proc/PID/task/PID/children: "123 124 125 " (the children of the leader thread).
std::vector<pid_t> read_children(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children";
  std::vector<pid_t> children;
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return children;
  }
  std::string text;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::read(fd.get(), buffer, sizeof buffer)) > 0) {
    text.append(buffer, static_cast<size_t>(n));
  }
  for (const std::string& word : split(text, ' ')) {
    if (auto child = parse_int(word)) {
      children.push_back(static_cast<pid_t>(*child));
    }
  }
  return children;
}

// The files -f, then, when `each_second` is due, the files -s (after them in p.fds).
bool read_process(Process& p, const FloorOptions& options, bool each_second, char* buffer, size_t size) {
  size_t count = options.files.size() + (each_second ? options.files_each_second.size() : 0);
  for (size_t f = 0; f < count; ++f) {
    bool ok = false;
    if (options.reopen) {
      ScopedFd fd(::open(p.paths[f].c_str(), O_RDONLY | O_CLOEXEC));
      ok = read_once(fd.get(), buffer, size);
    } else {
      ok = read_once(p.fds[f].get(), buffer, size);
    }
    if (!ok) {
      return false;
    }
  }
  return true;
}

}  // namespace

pid_t canopy::bench::start_command(const FloorOptions& options) {
  pid_t pid = ::fork();
  if (pid < 0) {
    std::fprintf(stderr, "canopy_bench_floor: fork: %s\n", std::strerror(errno));
    return -1;
  }
  if (pid == 0) {
    ::execvp(options.command[0], options.command.data());
    std::fprintf(stderr, "canopy_bench_floor: cannot run '%s': %s\n", options.command[0], std::strerror(errno));
    ::_exit(127);
  }
  return pid;
}

int main(int argc, char** argv) {
  auto options = parse_options(argc, argv);
  if (!options) {
    usage();
    return 2;
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
  if (options->events) {
    return canopy::bench::run_events_floor(*options);
  }

  pid_t root = canopy::bench::start_command(*options);
  if (root < 0) {
    return 1;
  }

  // The tree: the command and its children, once all have started (30 s at most).
  std::vector<pid_t> pids;
  for (int attempt = 0; attempt < 3000; ++attempt) {
    pids = read_children(root);
    if (static_cast<int64_t>(pids.size()) >= options->children) {
      break;
    }
    sleep_ms(10);
  }
  if (static_cast<int64_t>(pids.size()) < options->children) {
    std::fprintf(stderr, "canopy_bench_floor: the command has %zu children, not %lld\n", pids.size(),
                 static_cast<long long>(options->children));
    ::kill(root, SIGKILL);
    ::waitpid(root, nullptr, 0);
    return 1;
  }
  pids.insert(pids.begin(), root);

  std::vector<Process> tree(pids.size());
  for (size_t i = 0; i < pids.size(); ++i) {
    Process& p = tree[i];
    p.pid = pids[i];
    std::vector<std::string> files = options->files;
    files.insert(files.end(), options->files_each_second.begin(), options->files_each_second.end());
    for (const std::string& file : files) {
      p.paths.push_back("/proc/" + std::to_string(p.pid) + "/" + file);
      if (!options->reopen) {
        p.fds.emplace_back(::open(p.paths.back().c_str(), O_RDONLY | O_CLOEXEC));
      }
    }
  }

  char buffer[4096];
  int64_t process_reads = 0;
  int64_t ticks = 0;
  canopy::bench::TickClock clock(options->interval_ms);
  const int64_t ticks_per_second = std::max<int64_t>(1, 1000 / options->interval_ms);
  for (;;) {
    while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &clock.next(), nullptr) == EINTR) {
    }
    int status = 0;
    if (::waitpid(root, &status, WNOHANG) == root) {
      break;
    }
    const bool each_second = ticks % ticks_per_second == 0;
    ++ticks;
    for (Process& p : tree) {
      if (p.gone) {
        continue;
      }
      if (read_process(p, *options, each_second, buffer, sizeof buffer)) {
        ++process_reads;
      } else {
        p.gone = true;  // ESRCH: it has ended
        p.fds.clear();
      }
    }
    clock.move_on();
  }

  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  std::printf("process_reads=%lld ticks=%lld processes=%zu cpu_user_ns=%lld cpu_system_ns=%lld\n",
              static_cast<long long>(process_reads), static_cast<long long>(ticks), tree.size(),
              static_cast<long long>(rusage_ns(self.ru_utime)), static_cast<long long>(rusage_ns(self.ru_stime)));
  return 0;
}
