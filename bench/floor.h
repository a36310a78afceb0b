// What the two modes of the kernel floor (floor.cpp: a fixed idle tree; floor_events.cpp:
// a tree found through process events) share: their options, their clock and their
// one way of reading a file.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

namespace canopy::bench {

struct FloorOptions {
  int64_t interval_ms = 100;
  int64_t children = 0;
  std::vector<std::string> files{"stat", "statm"};
  std::vector<std::string> files_each_second;
  bool reopen = false;
  bool events = false;  // -n, -f, -s and --reopen do not apply: its reads are fixed
  std::vector<char*> command;  // null-terminated, for execvp
};

// The text is read into `buffer` and dropped: /proc files are produced whole by the
// first read, so one read is the kernel's full cost for these short files.
inline bool read_once(int fd, char* buffer, size_t size) { return fd >= 0 && ::pread(fd, buffer, size, 0) > 0; }

inline int64_t rusage_ns(const timeval& tv) {
  return static_cast<int64_t>(tv.tv_sec) * 1'000'000'000 + tv.tv_usec * 1000;
}

// The clock of canopy's loop: fixed ticks; a late tick is skipped, never bunched up.
class TickClock {
 public:
  explicit TickClock(int64_t interval_ms) : interval_ns_(interval_ms * 1'000'000) {
    ::clock_gettime(CLOCK_MONOTONIC, &next_);
    advance();
  }

  const timespec& next() const { return next_; }

  // Milliseconds until the next tick, rounded up (0: it is due).
  int ms_to_next() const {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ns = (next_.tv_sec - now.tv_sec) * 1'000'000'000 + (next_.tv_nsec - now.tv_nsec);
    return ns <= 0 ? 0 : static_cast<int>((ns + 999'999) / 1'000'000);
  }

  // After a tick: the next one that is still ahead.
  void move_on() {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    advance();
    while (now.tv_sec > next_.tv_sec || (now.tv_sec == next_.tv_sec && now.tv_nsec > next_.tv_nsec)) {
      advance();
    }
  }

 private:
  void advance() {
    int64_t ns = next_.tv_nsec + interval_ns_;
    next_.tv_sec += static_cast<time_t>(ns / 1'000'000'000);
    next_.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  }

  int64_t interval_ns_;
  timespec next_{};
};

// Forks and execs options.command; on failure says why in one line and returns -1.
pid_t start_command(const FloorOptions& options);

// The events mode: runs options.command, follows its tree through process events and
// reads each process at its fork, exec and exit and on every tick (floor_events.cpp).
// Prints the result line; returns the exit status for main.
int run_events_floor(const FloorOptions& options);

}  // namespace canopy::bench
