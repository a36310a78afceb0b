#include "record/launcher.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace canopy::record {
namespace {

// Our environment with `setup.environment` put over it, built before fork: the child
// only execs.
std::vector<std::string> child_environment(const ChildSetup& setup) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry; ++entry) {
    std::string_view name(*entry, std::strcspn(*entry, "="));
    bool replaced = false;
    for (const auto& extra : setup.environment) {
      replaced = replaced || (extra.size() > name.size() && extra.compare(0, name.size(), name) == 0 &&
                              extra[name.size()] == '=');
    }
    if (!replaced) {
      env.emplace_back(*entry);
    }
  }
  env.insert(env.end(), setup.environment.begin(), setup.environment.end());
  return env;
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const auto& s : strings) {
    pointers.push_back(const_cast<char*>(s.c_str()));
  }
  pointers.push_back(nullptr);
  return pointers;
}

// Async-signal-safe, for the child between fork and exec.
void restore_disposition(int signal, bool ignored) {
  struct sigaction action {};
  action.sa_handler = ignored ? SIG_IGN : SIG_DFL;
  ::sigaction(signal, &action, nullptr);
}

[[noreturn]] void run_child(int gate, int errno_pipe, char* const* argv, char* const* envp, const ChildSetup& setup) {
  char go = 0;
  ssize_t n;
  while ((n = ::read(gate, &go, 1)) < 0 && errno == EINTR) {
  }
  if (n != 1) {
    ::_exit(125);  // the recorder gave up before the command started
  }
  // The recorder blocks the signals it handles through a signalfd; the command must
  // start with the ordinary mask and dispositions.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  restore_disposition(SIGPIPE, setup.sigpipe_ignored);  // the recorder ignores it while capturing output
  restore_disposition(SIGXFSZ, setup.sigxfsz_ignored);  // and always ignores this one
  if (setup.stdout_fd >= 0) {
    ::dup2(setup.stdout_fd, STDOUT_FILENO);
  }
  if (setup.stderr_fd >= 0) {
    ::dup2(setup.stderr_fd, STDERR_FILENO);
  }
  ::execvpe(argv[0], argv, envp);
  int error = errno;
  (void)!::write(errno_pipe, &error, sizeof error);
  ::_exit(error == ENOENT ? kExitNotFound : kExitCannotExecute);
}

// fork(), or clone3 straight into a cgroup: no moment outside it, so nothing it
// allocates is charged elsewhere. Same return values as fork().
pid_t fork_into(int cgroup_fd) {
  if (cgroup_fd < 0) {
    return ::fork();
  }
  clone_args args{};
  args.flags = CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = static_cast<uint64_t>(cgroup_fd);
  return static_cast<pid_t>(::syscall(SYS_clone3, &args, sizeof args));
}

}  // namespace

Result<Launch> Launch::fork_gated(const std::vector<std::string>& argv, const ChildSetup& setup) {
  std::vector<std::string> env = child_environment(setup);
  std::vector<char*> argv_c = c_strings(argv);
  std::vector<char*> env_c = c_strings(env);
  int gate[2];
  int errno_pipe[2];
  if (::pipe2(gate, O_CLOEXEC) != 0) {
    return Error{std::string("cannot start the command: pipe: ") + std::strerror(errno)};
  }
  ScopedFd gate_read(gate[0]);
  ScopedFd gate_write(gate[1]);
  if (::pipe2(errno_pipe, O_CLOEXEC) != 0) {
    return Error{std::string("cannot start the command: pipe: ") + std::strerror(errno)};
  }
  ScopedFd errno_read(errno_pipe[0]);
  ScopedFd errno_write(errno_pipe[1]);

  pid_t pid = fork_into(setup.cgroup_fd);
  if (pid < 0) {
    return Error{std::string("cannot start the command: ") + (setup.cgroup_fd < 0 ? "fork: " : "clone3 into its cgroup: ") +
                 std::strerror(errno)};
  }
  if (pid == 0) {
    // Drop the parent's ends, or the child would hold its own gate open forever.
    ::close(gate_write.release());
    ::close(errno_read.release());
    run_child(gate_read.get(), errno_write.get(), argv_c.data(), env_c.data(), setup);
  }
  Launch launch;
  launch.pid_ = pid;
  launch.command_ = argv.at(0);
  launch.gate_ = std::move(gate_write);
  launch.exec_errno_ = std::move(errno_read);
  return launch;
}

Launch::~Launch() {
  if (gate_) {
    abort();
  }
}

void Launch::abort() {
  gate_.reset();  // the child reads EOF at the gate and exits 125 without running
  if (pid_ > 0) {
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

std::optional<ExecFailure> Launch::release() {
  char go = 1;
  (void)!::write(gate_.get(), &go, 1);
  gate_.reset();
  int error = 0;
  ssize_t n;
  while ((n = ::read(exec_errno_.get(), &error, sizeof error)) < 0 && errno == EINTR) {
  }
  exec_errno_.reset();
  if (n != sizeof error) {
    return std::nullopt;  // EOF: the pipe closed on exec, the command runs
  }
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return exec_failure(command_, error);
}

}  // namespace canopy::record
