// The floor for a tree that changes (canopy_bench_floor --events): the least CPU that
// capturing every process of a tree through /proc can cost. A recorder that sees each
// process, however briefly it lives, has to hear of it from the kernel (process
// events) and read it before it is gone; this does only that:
//
//   at its fork   stat                 (its name, start, parent)
//   at its exec   stat, cmdline, exe   (its new identity)
//   at its exit   stat, statm          (its final CPU and memory)
//   each tick     schedstat, to learn whether it ran; if it did: stat, statm and io,
//                 and status at its first tick, when its resident memory shrank or
//                 passed its peak, and otherwise once a second; if it did not: statm
//                 once a second
//
// which are the files canopy reads of a process by the same rules, with every file
// but cmdline opened once and kept. Whether it ran is a comparison of schedstat's
// text with the last, and statm's resident pages are its one number parsed; nothing
// else is parsed or stored. What canopy adds on top (taskstats exit records, parsing,
// SQLite, its cgroup, the machine's memory each tick) is what canopy / this floor
// measures; what canopy leaves out (it reads no schedstat at a tick where its
// cgroup's CPU counter stood still) it may save.
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/scoped_resource.h"
#include "floor.h"
#include "probe/proc_events.h"

namespace canopy::bench {

namespace {

// One process of the tree: its /proc files, each opened at its first read and kept.
class TreeProcess {
 public:
  explicit TreeProcess(pid_t pid) : dir_("/proc/" + std::to_string(pid) + "/") {}

  bool read(const char* file, char* buffer, size_t size) { return read_once(fd(file), buffer, size); }

  // One tick's reads, by canopy's rules (see the top of this file); false once it has
  // ended.
  bool tick(int64_t t_ms, char* buffer, size_t size) {
    ssize_t n = ::pread(fd("schedstat"), buffer, size, 0);
    if (n <= 0) {
      return false;
    }
    const bool first = last_run_.empty();
    const bool ran = first || last_run_ != std::string_view(buffer, static_cast<size_t>(n));
    last_run_.assign(buffer, static_cast<size_t>(n));
    if (!ran) {
      if (t_ms - last_statm_ms_ < 1000) {
        return true;
      }
      last_statm_ms_ = t_ms;
      return read("statm", buffer, size);
    }
    last_statm_ms_ = t_ms;
    n = ::pread(fd("statm"), buffer, size - 1, 0);
    if (n <= 0) {
      return false;
    }
    buffer[n] = '\0';
    // "size resident shared ...": the second field.
    const char* after_size = std::strchr(buffer, ' ');
    const int64_t resident = after_size ? std::strtoll(after_size + 1, nullptr, 10) : 0;
    if (!read("stat", buffer, size) || !read("io", buffer, size)) {
      return false;
    }
    const bool status_due =
        first || t_ms - last_status_ms_ >= 1000 || resident < last_resident_ || resident > peak_resident_;
    last_resident_ = resident;
    peak_resident_ = std::max(peak_resident_, resident);
    if (status_due) {
      last_status_ms_ = t_ms;
      return read("status", buffer, size);
    }
    return true;
  }

  // Opened afresh each time, as canopy does: an exec replaces the arguments.
  void read_identity(char* buffer, size_t size) {
    ScopedFd cmdline(::open((dir_ + "cmdline").c_str(), O_RDONLY | O_CLOEXEC));
    read_once(cmdline.get(), buffer, size);
    char target[PATH_MAX];
    [[maybe_unused]] ssize_t n = ::readlink((dir_ + "exe").c_str(), target, sizeof target);
  }

 private:
  int fd(const char* file) {
    for (auto& [name, fd] : files_) {
      if (name == file) {
        return fd.get();
      }
    }
    files_.emplace_back(file, ScopedFd(::open((dir_ + file).c_str(), O_RDONLY | O_CLOEXEC)));
    return files_.back().second.get();
  }

  std::string dir_;
  std::vector<std::pair<std::string, ScopedFd>> files_;
  std::string last_run_;  // schedstat's text at the last tick
  int64_t last_statm_ms_ = 0;
  int64_t last_status_ms_ = 0;
  int64_t last_resident_ = 0;  // pages, from statm
  int64_t peak_resident_ = 0;
};

class EventsFloor {
 public:
  EventsFloor(int64_t interval_ms, pid_t root) : interval_ms_(interval_ms), root_(root) {
    tree_.emplace(root, TreeProcess(root));
  }

  bool root_reaped() const { return root_reaped_; }

  void on_event(const probe::ProcEvent& event) {
    switch (event.kind) {
      case probe::ProcEvent::Kind::kFork:
        if (tree_.count(event.parent)) {
          auto [it, added] = tree_.emplace(event.pid, TreeProcess(event.pid));
          it->second.read("stat", buffer_, sizeof buffer_);
          processes_ += added ? 1 : 0;
        }
        break;
      case probe::ProcEvent::Kind::kExec:
        if (auto it = tree_.find(event.pid); it != tree_.end()) {
          it->second.read("stat", buffer_, sizeof buffer_);
          it->second.read_identity(buffer_, sizeof buffer_);
        }
        break;
      case probe::ProcEvent::Kind::kExit:
        if (auto it = tree_.find(event.pid); it != tree_.end()) {
          it->second.read("stat", buffer_, sizeof buffer_);
          it->second.read("statm", buffer_, sizeof buffer_);
          tree_.erase(it);
          if (event.pid == root_) {
            reap_root(0);
          }
        }
        break;
    }
  }

  void tick() {
    const int64_t t_ms = ticks_ * interval_ms_;
    ++ticks_;
    for (auto& [pid, process] : tree_) {
      // One that failed has ended: its exit event is on its way.
      process_reads_ += process.tick(t_ms, buffer_, sizeof buffer_) ? 1 : 0;
    }
    // Should its exit event be lost (a full socket buffer), the root still ends the run.
    reap_root(WNOHANG);
  }

  void print() const {
    rusage self{};
    ::getrusage(RUSAGE_SELF, &self);
    std::printf("process_reads=%lld ticks=%lld processes=%lld cpu_user_ns=%lld cpu_system_ns=%lld\n",
                static_cast<long long>(process_reads_), static_cast<long long>(ticks_),
                static_cast<long long>(processes_), static_cast<long long>(rusage_ns(self.ru_utime)),
                static_cast<long long>(rusage_ns(self.ru_stime)));
  }

 private:
  void reap_root(int flags) {
    if (!root_reaped_ && ::waitpid(root_, nullptr, flags) == root_) {
      root_reaped_ = true;
    }
  }

  const int64_t interval_ms_;
  const pid_t root_;
  std::unordered_map<pid_t, TreeProcess> tree_;
  bool root_reaped_ = false;
  int64_t processes_ = 1;
  int64_t process_reads_ = 0;
  int64_t ticks_ = 0;
  char buffer_[4096];
};

}  // namespace

int run_events_floor(const FloorOptions& options) {
  // Subscribed before the command starts, so that no fork of its tree goes unheard.
  auto events = probe::ProcEventSocket::open();
  if (!events) {
    std::fprintf(stderr, "canopy_bench_floor: %s\n", events.error().message.c_str());
    return 1;
  }
  pid_t root = start_command(options);
  if (root < 0) {
    return 1;
  }
  EventsFloor floor(options.interval_ms, root);
  TickClock clock(options.interval_ms);
  while (!floor.root_reaped()) {
    pollfd ready{events->fd(), POLLIN, 0};
    if (::poll(&ready, 1, clock.ms_to_next()) > 0) {
      events->drain([&](const probe::ProcEvent& event) { floor.on_event(event); });
    }
    if (!floor.root_reaped() && clock.ms_to_next() == 0) {
      floor.tick();
      clock.move_on();
    }
  }
  if (events->lost() > 0) {
    std::fprintf(stderr, "canopy_bench_floor: the kernel dropped process events %lld times\n",
                 static_cast<long long>(events->lost()));
    return 1;
  }
  floor.print();
  return 0;
}

}  // namespace canopy::bench
