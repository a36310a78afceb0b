#include "probe/cgroup_files.h"

#include <fcntl.h>
#include <unistd.h>

#include "common/text.h"

namespace canopy::probe {
namespace {

// Calls `on_line` for each line until it returns true; returns whether one did.
template <typename OnLine>
bool each_line(std::string_view text, OnLine on_line) {
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (on_line(line)) {
      return true;
    }
  }
  return false;
}

bool list_contains(std::string_view list, std::string_view item) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (list.substr(0, comma) == item) {
      return true;
    }
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return false;
}

// "ID:CONTROLLERS:PATH", the path possibly holding colons itself.
std::optional<std::string> path_where(std::string_view proc_cgroup, bool v2, std::string_view controller) {
  std::optional<std::string> found;
  each_line(proc_cgroup, [&](std::string_view line) {
    size_t first = line.find(':');
    size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) {
      return false;
    }
    std::string_view id = line.substr(0, first);
    std::string_view controllers = line.substr(first + 1, second - first - 1);
    bool match = v2 ? id == "0" && controllers.empty() : list_contains(controllers, controller);
    if (match) {
      found = std::string(line.substr(second + 1));
    }
    return match;
  });
  return found;
}

// "DEVICE MOUNTPOINT TYPE OPTIONS ..." with the mount point octal-escaped.
std::optional<std::string> mount_where(std::string_view mounts, std::string_view type, std::string_view option) {
  std::optional<std::string> found;
  each_line(mounts, [&](std::string_view line) {
    next_field(line);
    std::string_view point = next_field(line);
    std::string_view fs_type = next_field(line);
    std::string_view options = next_field(line);
    if (fs_type != type || (!option.empty() && !list_contains(options, option)) || point.find('\\') != point.npos) {
      return false;
    }
    found = std::string(point);
    return true;
  });
  return found;
}

}  // namespace

std::optional<std::string> cgroup_v2_path(std::string_view proc_cgroup) { return path_where(proc_cgroup, true, ""); }

std::optional<std::string> cgroup_v1_path(std::string_view proc_cgroup, std::string_view controller) {
  return path_where(proc_cgroup, false, controller);
}

std::optional<std::string> cgroup_v2_mount(std::string_view mounts) { return mount_where(mounts, "cgroup2", ""); }

std::optional<std::string> cgroup_v1_mount(std::string_view mounts, std::string_view controller) {
  return mount_where(mounts, "cgroup", controller);
}

std::optional<int64_t> flat_key_value(std::string_view text, std::string_view key) {
  std::optional<int64_t> value;
  each_line(text, [&](std::string_view line) {
    if (next_field(line) != key) {
      return false;
    }
    value = parse_int<int64_t>(next_field(line));
    return true;
  });
  return value;
}

std::optional<int64_t> single_value(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.remove_suffix(1);
  }
  return parse_int<int64_t>(text);
}

std::vector<pid_t> pid_list(std::string_view text) {
  std::vector<pid_t> pids;
  each_line(text, [&](std::string_view line) {
    if (auto pid = parse_int<pid_t>(line); pid && *pid > 0) {
      pids.push_back(*pid);
    }
    return false;
  });
  return pids;
}

CgroupFile::CgroupFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}

std::optional<std::string> CgroupFile::read() const {
  if (!fd_) {
    return std::nullopt;
  }
  // Most are a line; cgroup.procs of a large tree is longer.
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::pread(fd_.get(), buffer, sizeof buffer, static_cast<off_t>(text.size()));
    if (n < 0) {
      return std::nullopt;
    }
    text.append(buffer, static_cast<size_t>(n));
    // cgroup files are seq_files, which fill a read as far as they have text: a short
    // read is the end. Not asking again saves a call per file on every tick.
    if (static_cast<size_t>(n) < sizeof buffer) {
      return text;
    }
  }
}

std::optional<std::string> read_small_file(const std::string& path) {
  CgroupFile file(path);
  return file.read();
}

}  // namespace canopy::probe
