#include "integration/harness.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "probe/cgroup_files.h"
#include "probe/running_tree.h"

namespace canopy::testing {

Started::Started(const std::vector<std::string>& argv, const RunOptions& options) {
  int out[2];
  int err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe failed";
    return;
  }
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) {
      ::_exit(99);
    }
    for (const auto& [name, value] : options.env) {
      if (value.empty()) {
        ::unsetenv(name.c_str());
      } else {
        ::setenv(name.c_str(), value.c_str(), 1);
      }
    }
    std::vector<std::string> all = options.prefix;
    all.insert(all.end(), argv.begin(), argv.end());
    std::vector<char*> args;
    for (auto& arg : all) {
      args.push_back(arg.data());
    }
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(98);
  }
  ::close(out[1]);
  ::close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
}

namespace {

// Ends `root` and every process below it. Each is stopped before any is killed: a
// parent killed first would orphan a child the listing has not reached, and a shell
// still running could start one after it; either would hold the pipes open.
void end_process_tree(pid_t root) {
  ::kill(root, SIGSTOP);
  std::set<pid_t> stopped;
  for (bool found_more = true; found_more;) {
    found_more = false;
    for (pid_t pid : probe::read_descendants(root)) {
      if (stopped.insert(pid).second) {
        ::kill(pid, SIGSTOP);
        found_more = true;
      }
    }
  }
  ::kill(root, SIGKILL);
  for (pid_t pid : stopped) {
    ::kill(pid, SIGKILL);
  }
}

}  // namespace

// A test that stops early (a failed ASSERT) leaves its process running, perhaps with a
// tree below it: it all ends here, and what still holds the pipes after a while (a
// process that left the tree before) costs the output, not a hang.
Started::~Started() {
  if (!waited_ && pid_ > 0) {
    end_process_tree(pid_);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((out_fd_ >= 0 || err_fd_ >= 0) && std::chrono::steady_clock::now() < deadline) {
      pump(100);
    }
    for (int fd : {out_fd_, err_fd_}) {
      if (fd >= 0) {
        ::close(fd);
      }
    }
    ::waitpid(pid_, nullptr, 0);
  }
}

void Started::pump(int timeout_ms) {
  // poll ignores negative fds: a stream already at EOF is skipped.
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  if (::poll(fds, 2, timeout_ms) <= 0) {
    return;
  }
  char buf[4096];
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP))) {
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? result_.out : result_.err).append(buf, static_cast<size_t>(n));
      } else {
        ::close(fds[i].fd);
        (i == 0 ? out_fd_ : err_fd_) = -1;
      }
    }
  }
}

bool Started::wait_for_output(const std::string& text) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (result_.out.find(text) == std::string::npos) {
    if (out_fd_ < 0 || std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    pump(100);
  }
  return true;
}

pid_t pid_in_output(Started& started, const std::string& prefix) {
  if (!started.wait_for_output(prefix)) {
    ADD_FAILURE() << "never said '" << prefix << "': " << started.output();
    return 0;
  }
  const std::string& out = started.output();
  return static_cast<pid_t>(std::stol(out.substr(out.find(prefix) + prefix.size())));
}

bool Started::wait_for_error_output(const std::string& text) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (result_.err.find(text) == std::string::npos) {
    if (err_fd_ < 0 || std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    pump(100);
  }
  return true;
}

void Started::signal(int signal) const { ::kill(pid_, signal); }

Finished Started::wait() {
  while (out_fd_ >= 0 || err_fd_ >= 0) {
    pump(-1);
  }
  int status = 0;
  ::waitpid(pid_, &status, 0);
  waited_ = true;
  result_.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result_;
}

Finished run(const std::vector<std::string>& argv, const RunOptions& options) {
  Started started(argv, options);
  return started.wait();
}

store::Reader open_recording(const std::string& path) {
  auto reader = store::Reader::open(path);
  if (!reader) {
    ADD_FAILURE() << reader.error().message;
    std::abort();
  }
  return std::move(*reader);
}

std::map<int64_t, int64_t> anon_peaks(const store::Reader& reader) {
  std::map<int64_t, int64_t> peaks;
  auto status = reader.for_each_sample([&](int64_t, int64_t id, const store::SampleValues& v) {
    peaks[id] = std::max(peaks[id], v[store::kRssAnonBytes].value_or(0));
  });
  EXPECT_TRUE(status) << (status ? "" : status.error().message);
  return peaks;
}

std::vector<store::EventRow> limit_events(const store::Reader& reader) {
  auto events = reader.events_of_kind("limit");
  EXPECT_TRUE(events) << (events ? "" : events.error().message);
  return events ? *events : std::vector<store::EventRow>{};
}

int running_with_cmdline(const std::string& cmdline) {
  int count = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    // A process may exit between the listing and the read, which then fails with
    // ESRCH: it is not running, so it does not count.
    auto text = probe::read_small_file(entry.path() / "cmdline");
    count += text && *text == cmdline;
  }
  return count;
}

bool wait_for_recording(const std::string& path, const std::function<bool(const store::Reader&)>& ready) {
  for (int tries = 0; tries < 600; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    // A read racing the writer's commit, or a file not yet made, just tries again.
    auto live = store::Reader::open(path, store::Reader::Verify::kWhileReading);
    if (live && ready(*live)) {
      return true;
    }
  }
  return false;
}

int64_t epoch_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

int64_t mib(int64_t n) { return n << 20; }

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace canopy::testing
