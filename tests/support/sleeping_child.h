// A child running /bin/sleep with exactly the environment given, for the tests that
// read what a program started with from /proc (its auxiliary vector, its environment).
// The constructor returns once its exec is done: before, /proc shows its parent's copy,
// and the kernel names the new program before it hands it its vector (empty until
// then). Its stderr is /dev/null: a loader that cannot find a preloaded library says
// so there and runs on. Killed and reaped when it goes out of scope.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "probe/process_files.h"

namespace canopy::testing {

class SleepingChild {
 public:
  explicit SleepingChild(const std::vector<std::string>& environment) {
    std::vector<char*> envp;
    for (const std::string& entry : environment) {
      envp.push_back(const_cast<char*>(entry.c_str()));
    }
    envp.push_back(nullptr);
    char sleep_path[] = "/bin/sleep";
    char seconds[] = "30";
    char* argv[] = {sleep_path, seconds, nullptr};
    pid_ = ::fork();
    if (pid_ == 0) {
      if (FILE* null = std::freopen("/dev/null", "w", stderr); !null) {
        ::_exit(126);
      }
      ::execve(sleep_path, argv, envp.data());
      ::_exit(127);
    }
    files_ = probe::ProcessFiles::open(pid_);
    for (int tries = 0; files_ && tries < 500; ++tries) {
      std::ifstream comm("/proc/" + std::to_string(pid_) + "/comm");
      std::string name;
      std::getline(comm, name);
      if (name == "sleep" && files_->read_auxv().access == probe::Access::kRead) {
        break;
      }
      ::usleep(10'000);
    }
  }
  ~SleepingChild() { kill_and_reap(); }
  SleepingChild(const SleepingChild&) = delete;
  SleepingChild& operator=(const SleepingChild&) = delete;

  pid_t pid() const { return pid_; }
  // Its /proc files, opened while it lived; null when they could not be.
  probe::ProcessFiles* files() { return files_ ? &*files_ : nullptr; }
  // Gone: its files, still open, read nothing from here on.
  void kill_and_reap() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

 private:
  pid_t pid_ = -1;
  std::optional<probe::ProcessFiles> files_;
};

}  // namespace canopy::testing
