#include "probe/process_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace canopy::probe {
namespace {

// One buffer for all reads: the recorder is single-threaded and parses each file
// before reading the next.
std::string& scratch() {
  static std::string buffer(8192, '\0');
  return buffer;
}

ScopedFd open_at(int dir, const char* name) {
  return ScopedFd(::openat(dir, name, O_RDONLY | O_CLOEXEC));
}

// Calls `visit` with the fd of the process's task directory and each thread's id (its
// entry's name), until `visit` returns true. False when none did.
template <typename Visit>
bool visit_threads(int process_dir, Visit visit) {
  ScopedFd task_fd = open_at(process_dir, "task");
  if (!task_fd) {
    return false;
  }
  ScopedDir task(::fdopendir(task_fd.release()));
  if (!task) {
    return false;
  }
  while (dirent* entry = ::readdir(task.get())) {
    if (entry->d_name[0] != '.' && visit(::dirfd(task.get()), entry->d_name)) {
      return true;
    }
  }
  return false;
}

std::string read_link_at(int dir, const char* name) {
  char target[PATH_MAX];
  ssize_t n = ::readlinkat(dir, name, target, sizeof target);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

}  // namespace

std::optional<std::string> read_environment_variable(pid_t pid, std::string_view name,
                                                     const std::string& proc_root) {
  ScopedFd fd(::open((proc_root + "/" + std::to_string(pid) + "/environ").c_str(), O_RDONLY | O_CLOEXEC));
  std::string buffer(4096, '\0');
  auto text = pread_all(fd.get(), buffer);
  if (!text) {
    return std::nullopt;
  }
  for (size_t start = 0; start < text->size();) {
    size_t end = text->find('\0', start);
    std::string_view entry = text->substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (entry.size() > name.size() && entry.substr(0, name.size()) == name && entry[name.size()] == '=') {
      return std::string(entry.substr(name.size() + 1));
    }
    if (end == std::string_view::npos) {
      break;
    }
    start = end + 1;
  }
  return std::nullopt;
}

std::optional<std::string_view> pread_all(int fd, std::string& buffer) {
  if (fd < 0) {
    return std::nullopt;
  }
  size_t length = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buffer.data() + length, buffer.size() - length, static_cast<off_t>(length));
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return std::nullopt;
    }
    length += static_cast<size_t>(n);
    // Single-record /proc files are produced whole by the first read, so a short read
    // is the end: this saves the extra read that would only return 0.
    if (length < buffer.size()) {
      return std::string_view(buffer.data(), length);
    }
    buffer.resize(buffer.size() * 2);
  }
}

std::optional<ProcessFiles> ProcessFiles::open(pid_t pid, const std::string& proc_root) {
  ProcessFiles files(pid);
  std::string dir = proc_root + "/" + std::to_string(pid);
  files.dir_ = ScopedFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!files.dir_) {
    return std::nullopt;
  }
  files.stat_ = open_at(files.dir_.get(), "stat");
  if (!files.stat_) {
    return std::nullopt;
  }
  return files;
}

int ProcessFiles::kept(KeptFile& file) {
  if (!file.tried) {
    file.tried = true;
    std::string children;
    if (!file.name) {
      children = "task/" + std::to_string(pid_) + "/children";
    }
    file.fd = open_at(dir_.get(), file.name ? file.name : children.c_str());
  }
  return file.fd.get();
}

std::optional<StatFields> ProcessFiles::read_stat() {
  auto text = pread_all(stat_.get(), scratch());
  return text ? parse_stat(*text) : std::nullopt;
}

std::optional<StatmFields> ProcessFiles::read_statm() {
  auto text = pread_all(kept(statm_), scratch());
  return text ? parse_statm(*text) : std::nullopt;
}

std::optional<int64_t> ProcessFiles::read_run_ns() {
  auto text = pread_all(kept(schedstat_), scratch());
  return text ? parse_schedstat_run_ns(*text) : std::nullopt;
}

std::optional<StatusFields> ProcessFiles::read_status() {
  auto text = pread_all(kept(status_), scratch());
  return text ? parse_status(*text) : std::nullopt;
}

std::optional<IoFields> ProcessFiles::read_io() {
  auto text = pread_all(kept(io_), scratch());
  return text ? parse_io(*text) : std::nullopt;
}

std::optional<SmapsRollupFields> ProcessFiles::read_smaps_rollup() {
  auto text = pread_all(kept(smaps_rollup_), scratch());
  return text ? parse_smaps_rollup(*text) : std::nullopt;
}

std::vector<pid_t> ProcessFiles::read_children(int64_t threads) {
  if (threads <= 1) {
    auto text = pread_all(kept(leader_children_), scratch());
    return text ? parse_children(*text) : std::vector<pid_t>{};
  }
  std::vector<pid_t> children;
  visit_threads(dir_.get(), [&](int task, const char* tid) {
    ScopedFd fd = open_at(task, (std::string(tid) + "/children").c_str());
    if (auto text = pread_all(fd.get(), scratch())) {
      auto more = parse_children(*text);
      children.insert(children.end(), more.begin(), more.end());
    }
    return false;
  });
  return children;
}

template <typename Fields>
std::optional<Fields> ProcessFiles::read_live_thread(const char* file, std::optional<Fields> (*parse)(std::string_view)) {
  const std::string leader = std::to_string(pid_);
  std::optional<Fields> fields;
  visit_threads(dir_.get(), [&](int task, const char* tid) {
    if (tid == leader) {
      return false;
    }
    ScopedFd fd = open_at(task, (std::string(tid) + "/" + file).c_str());
    auto text = pread_all(fd.get(), scratch());
    fields = text ? parse(*text) : std::nullopt;
    return fields.has_value();
  });
  return fields;
}

std::optional<StatmFields> ProcessFiles::read_live_thread_statm() {
  // A thread that is exiting has let go of the memory: its statm reads all zeros.
  return read_live_thread<StatmFields>("statm", [](std::string_view text) {
    auto fields = parse_statm(text);
    return fields && fields->size_pages > 0 ? fields : std::nullopt;
  });
}

std::optional<StatusFields> ProcessFiles::read_live_thread_status() {
  // Without memory, status has no memory lines, which parse_status requires.
  return read_live_thread<StatusFields>("status", parse_status);
}

std::string ProcessFiles::read_exe() { return read_link_at(dir_.get(), "exe"); }

std::string ProcessFiles::read_cwd() { return read_link_at(dir_.get(), "cwd"); }

std::vector<std::string> ProcessFiles::read_cmdline() {
  ScopedFd fd = open_at(dir_.get(), "cmdline");
  auto text = pread_all(fd.get(), scratch());
  if (!text) {
    return {};
  }
  // Each argument ends in a NUL. More NULs at the end are padding, not empty arguments:
  // a process that rewrote its command line into a shorter title (setproctitle) clears
  // the rest of the space its arguments had. A command's last empty arguments go too.
  std::string_view args = *text;
  while (!args.empty() && args.back() == '\0') {
    args.remove_suffix(1);
  }
  return args.empty() ? std::vector<std::string>{} : parse_cmdline(args);
}

}  // namespace canopy::probe
