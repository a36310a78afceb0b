// Runs one command and writes what wait4 says of it (bench/heap.py).
//
//   canopy_bench_measured_run REPORT_FILE -- COMMAND [ARG...]
//
// One line of key=value to REPORT_FILE: the exit status, the wall time, and the user
// and system time and max RSS of the command and every child it waited for. Python
// could call wait4 itself, but a process it forks starts with its resident pages
// counted (fork copies the page-table counts, and exec keeps the high-water mark in
// ru_maxrss): the command's max RSS would read as at least the interpreter's 18 MiB.
// Forked from this small program instead, it starts from about 1 MiB. Uses only C
// library calls, so that libstdc++ is not loaded and its pages do not count either.
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace {

int64_t monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

int64_t to_ns(const timeval& t) { return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_usec * 1000; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[2], "--") != 0) {
    std::fprintf(stderr, "usage: %s REPORT_FILE -- COMMAND [ARG...]\n", argv[0]);
    return 2;
  }
  FILE* report = std::fopen(argv[1], "w");
  if (!report) {
    std::fprintf(stderr, "canopy_bench_measured_run: cannot write '%s': %s\n", argv[1], std::strerror(errno));
    return 1;
  }
  int64_t started_ns = monotonic_ns();
  pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "canopy_bench_measured_run: fork: %s\n", std::strerror(errno));
    return 1;
  }
  if (child == 0) {
    execvp(argv[3], argv + 3);
    std::fprintf(stderr, "canopy_bench_measured_run: cannot run '%s': %s\n", argv[3], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  while (wait4(child, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "canopy_bench_measured_run: wait4: %s\n", std::strerror(errno));
      return 1;
    }
  }
  int64_t wall_ns = monotonic_ns() - started_ns;
  std::fprintf(report,
               "status=%d wall_ns=%" PRId64 " cpu_user_ns=%" PRId64 " cpu_system_ns=%" PRId64 " max_rss_kib=%ld\n",
               status, wall_ns, to_ns(usage.ru_utime), to_ns(usage.ru_stime), usage.ru_maxrss);
  return std::fclose(report) == 0 ? 0 : 1;
}
