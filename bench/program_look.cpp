// What record --heap's look at a program costs (record/heap_coverage.h): the CPU of
// HeapCoverage::reason_not_loaded on live processes, whose environment is as large as
// asked, with the profiler's variables at its end (the most a look reads) or at its
// start. The recorder pays one look per program the tree execs.
//
//   canopy_bench_program_look [ENVIRONMENT_BYTES [first]]
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "record/heap_coverage.h"

namespace {

constexpr int kChildren = 200;
constexpr int kRounds = 50;

double seconds(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  size_t environment_bytes = argc > 1 ? std::stoul(argv[1]) : 4000;
  bool variables_first = argc > 2 && std::string(argv[2]) == "first";
  const std::string library = "/usr/lib/canopy/libcanopy-heap.so";
  const std::string socket = "/tmp/canopy-bench/heap.sock";
  std::vector<std::string> variables = {"LD_PRELOAD=" + library, "CANOPY_HEAP_SOCKET=" + socket};
  std::vector<std::string> environment;
  if (variables_first) {
    environment = variables;
  }
  for (size_t used = 0, i = 0; used < environment_bytes; ++i) {
    environment.push_back("VARIABLE_" + std::to_string(i) + "=" + std::string(40, 'x'));
    used += environment.back().size() + 1;
  }
  if (!variables_first) {
    environment.insert(environment.end(), variables.begin(), variables.end());
  }
  std::vector<char*> envp;
  for (std::string& entry : environment) {
    envp.push_back(entry.data());
  }
  envp.push_back(nullptr);
  std::vector<pid_t> pids;
  for (int i = 0; i < kChildren; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      int null_fd = ::open("/dev/null", O_WRONLY);
      ::dup2(null_fd, 2);  // the loader says it cannot find the library, and runs on
      char sleep_path[] = "/bin/sleep";
      char duration[] = "60";
      char* args[] = {sleep_path, duration, nullptr};
      ::execve(sleep_path, args, envp.data());
      ::_exit(127);
    }
    pids.push_back(pid);
  }
  ::usleep(500'000);  // every exec done
  canopy::record::HeapCoverage coverage(library, socket, 4096);
  std::vector<canopy::probe::ProcessFiles> files;
  for (pid_t pid : pids) {
    if (auto opened = canopy::probe::ProcessFiles::open(pid)) {
      files.push_back(std::move(*opened));
    }
  }
  int would_load = 0;
  double wall = seconds(CLOCK_MONOTONIC);
  double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
  for (int round = 0; round < kRounds; ++round) {
    for (auto& process : files) {
      would_load += coverage.reason_not_loaded(&process) == nullptr;
    }
  }
  wall = seconds(CLOCK_MONOTONIC) - wall;
  cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
  auto looks = static_cast<double>(kRounds * files.size());
  std::printf("environment of %zu bytes, variables %s: %.0f looks (%d would load), %.1f us CPU and %.1f us wall each\n",
              environment_bytes, variables_first ? "first" : "last", looks, would_load, cpu / looks * 1e6,
              wall / looks * 1e6);
  for (pid_t pid : pids) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  return would_load == static_cast<int>(looks) ? 0 : 1;
}
