// The heap coverage test's tree (tests/integration/heap_coverage_test.cpp): a driver
// that starts the programs the test names, when the test says, and keeps them running
// until it says so, so that the recorder has seen each before it ends.
//
//   heap_coverage_workload driver FIFO   reads commands from FIFO, one a line:
//     hold NAME PROGRAM [ARG...]   fork and exec PROGRAM, its stdin the read end of a
//                                  pipe the driver holds: it runs until `release`.
//                                  Prints "held NAME PID".
//     brief NAME PROGRAM [ARG...]  fork and exec PROGRAM with stdin /dev/null, and
//                                  wait for its end. Prints "ended NAME PID".
//     fork NAME                    fork a child that exits at once, without an exec;
//                                  it stays a zombie until `release`. Prints
//                                  "forked NAME PID".
//     release                      close the pipe and wait for every held program.
//                                  Prints "released".
//   and exits at the FIFO's end.
//   heap_coverage_workload allocate      allocates 8 MiB in blocks of 1 MiB, then reads
//                                        its stdin to the end and exits
//
// Between fork and exec a child allocates nothing: everything it needs is made
// before the fork, so that only the program it execs decides what it reports.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<void*> kept;

pid_t start(const std::vector<std::string>& words, int stdin_fd) {
  std::vector<char*> argv;
  for (size_t i = 2; i < words.size(); ++i) {
    argv.push_back(const_cast<char*>(words[i].c_str()));
  }
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(stdin_fd, 0);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

int run_driver(const char* fifo) {
  for (int i = 0; i < 4; ++i) {
    kept.push_back(std::malloc(1 << 20));  // the driver is profiled whatever it does: sampled or not, it exits
  }
  int hold[2];
  if (::pipe2(hold, O_CLOEXEC) != 0) {
    std::perror("pipe");
    return 1;
  }
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::vector<pid_t> held;
  std::ifstream commands(fifo);
  for (std::string line; std::getline(commands, line);) {
    std::istringstream split(line);
    std::vector<std::string> words;
    for (std::string word; split >> word;) {
      words.push_back(word);
    }
    if (words.size() >= 3 && words[0] == "hold") {
      pid_t pid = start(words, hold[0]);
      held.push_back(pid);
      std::printf("held %s %d\n", words[1].c_str(), pid);
    } else if (words.size() >= 3 && words[0] == "brief") {
      pid_t pid = start(words, null_fd);
      ::waitpid(pid, nullptr, 0);
      std::printf("ended %s %d\n", words[1].c_str(), pid);
    } else if (words.size() == 2 && words[0] == "fork") {
      pid_t pid = ::fork();
      if (pid == 0) {
        ::_exit(0);
      }
      held.push_back(pid);
      std::printf("forked %s %d\n", words[1].c_str(), pid);
    } else if (words.size() == 1 && words[0] == "release") {
      ::close(hold[1]);
      for (pid_t pid : held) {
        ::waitpid(pid, nullptr, 0);
      }
      std::printf("released\n");
    } else {
      std::fprintf(stderr, "heap_coverage_workload: no such command '%s'\n", line.c_str());
      return 1;
    }
    std::fflush(stdout);
  }
  return 0;
}

int run_allocate() {
  for (int i = 0; i < 8; ++i) {
    void* block = std::malloc(1 << 20);
    std::memset(block, 1, 1 << 20);
    kept.push_back(block);
  }
  char buffer[256];
  while (::read(0, buffer, sizeof buffer) > 0) {
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "driver") == 0) {
    return run_driver(argv[2]);
  }
  if (argc == 2 && std::strcmp(argv[1], "allocate") == 0) {
    return run_allocate();
  }
  std::fprintf(stderr, "usage: heap_coverage_workload driver FIFO | allocate\n");
  return 2;
}
