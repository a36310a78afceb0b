#include "record/mark_channel.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/json_dump.h"
#include "common/json_parse.h"
#include "common/utf8.h"
#include "probe/system.h"

namespace canopy::record {
namespace {

constexpr char kRecordSeparator = '\x1e';

// $XDG_RUNTIME_DIR is private to the user and cleaned at logout; else the usual temp.
std::string private_base_directory() {
  for (const char* name : {"XDG_RUNTIME_DIR", "TMPDIR"}) {
    const char* value = ::getenv(name);
    struct stat st{};
    if (value && *value == '/' && ::stat(value, &st) == 0 && S_ISDIR(st.st_mode) && ::access(value, W_OK) == 0) {
      return value;
    }
  }
  return "/tmp";
}

constexpr std::string_view kChannelPrefix = "canopy-";
constexpr std::string_view kMarksName = "marks";
// A recorder makes its directory, then its marks file, then locks it: a directory this
// young may be one whose recorder has not locked it yet.
constexpr time_t kAbandonedAfterS = 60;

// A recorder killed by SIGKILL (the OOM killer, a CI job's timeout) leaves its directory
// behind, and its lock went with it. This removes the user's directories of that kind
// whose marks file nobody locks, with what a recorder puts in them (its marks file, the
// heap profiler's socket); a directory that holds anything else stays.
void remove_abandoned_channels(const std::string& base) {
  DIR* listing = ::opendir(base.c_str());
  if (!listing) {
    return;
  }
  const time_t now = ::time(nullptr);
  while (const dirent* entry = ::readdir(listing)) {
    const std::string_view name = entry->d_name;
    struct stat st{};
    const std::string dir = base + "/" + entry->d_name;
    if (!name.starts_with(kChannelPrefix) || name.size() != kChannelPrefix.size() + 6 ||
        ::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
        now - st.st_mtime < kAbandonedAfterS) {
      continue;
    }
    const std::string marks = dir + "/" + std::string(kMarksName);
    ScopedFd fd(::open(marks.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      continue;  // its recorder still records, or it is not a recorder's
    }
    for (const std::string_view left : {kMarksName, std::string_view(kHeapSocketName)}) {
      ::unlink((dir + "/" + std::string(left)).c_str());
    }
    ::rmdir(dir.c_str());
  }
  ::closedir(listing);
}

Mark parse_mark_line(std::string_view line, const RecordingClock& clock) {
  std::string scratch;
  const int64_t now_ms = clock.now_ms();
  if (!line.empty() && line[0] == kRecordSeparator) {
    auto json = json_parse_or_discarded(line.substr(1));
    if (json.is_object() && json.contains("text") && json["text"].is_string()) {
      Mark mark{now_ms, std::nullopt, json["text"].get<std::string>()};
      // The caller's moment on the recording's own clock, so that it orders with the
      // lines timed on arrival; "t" (the wall clock, which may lie a millisecond or an
      // NTP step away from it) only from a writer that sends nothing else.
      if (json.contains("monotonic_ns") && json["monotonic_ns"].is_number_unsigned()) {
        mark.t_ms = clock.from_monotonic_ns(json["monotonic_ns"].get<uint64_t>());
      } else if (json.contains("t") && json["t"].is_number_integer()) {
        mark.t_ms = json["t"].get<int64_t>();
      }
      if (json.contains("pid") && json["pid"].is_number_integer()) {
        mark.pid = static_cast<pid_t>(json["pid"].get<int64_t>());
      }
      return mark;
    }
    line.remove_prefix(1);
  }
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  return Mark{now_ms, std::nullopt, std::string(sanitized_utf8(line, scratch))};
}

}  // namespace

Result<MarkChannel> MarkChannel::create() {
  MarkChannel channel;
  const std::string base = private_base_directory();
  remove_abandoned_channels(base);
  std::string pattern = base + "/" + std::string(kChannelPrefix) + "XXXXXX";
  if (!::mkdtemp(pattern.data())) {
    return Error{"cannot create the marker file for " + std::string(kMarkVariable) + " in " + pattern + ": " +
                 std::strerror(errno)};
  }
  channel.dir_ = pattern;
  channel.path_ = pattern + "/" + std::string(kMarksName);
  channel.file_ = ScopedFd(::open(channel.path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!channel.file_ || ::flock(channel.file_.get(), LOCK_EX | LOCK_NB) != 0) {
    return Error{"cannot create the marker file " + channel.path_ + ": " + std::strerror(errno)};
  }
  // Without inotify (its watch limit reached), markers are still read every tick.
  channel.inotify_ = ScopedFd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (channel.inotify_) {
    channel.watch_ = ::inotify_add_watch(channel.inotify_.get(), channel.path_.c_str(), IN_MODIFY);
    if (channel.watch_ < 0) {
      channel.inotify_.reset();
    }
  }
  return channel;
}

void MarkChannel::stop_watching() {
  if (inotify_ && watch_ >= 0) {
    ::inotify_rm_watch(inotify_.get(), watch_);
    watch_ = -1;
  }
}

MarkChannel::MarkChannel(MarkChannel&& other) noexcept
    : dir_(std::exchange(other.dir_, {})),
      path_(std::exchange(other.path_, {})),
      file_(std::move(other.file_)),
      inotify_(std::move(other.inotify_)),
      watch_(std::exchange(other.watch_, -1)),
      partial_(std::move(other.partial_)) {}

MarkChannel::~MarkChannel() {
  if (!path_.empty()) {
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
}

void MarkChannel::read_new(const RecordingClock& clock, const std::function<void(const Mark&)>& on_mark) {
  if (inotify_) {
    char events[4096];
    while (::read(inotify_.get(), events, sizeof events) > 0) {
    }
  }
  char buffer[16 << 10];
  ssize_t n;
  while ((n = ::read(file_.get(), buffer, sizeof buffer)) > 0) {
    partial_.append(buffer, static_cast<size_t>(n));
  }
  size_t start = 0;
  for (size_t newline; (newline = partial_.find('\n', start)) != std::string::npos; start = newline + 1) {
    std::string_view line(partial_.data() + start, newline - start);
    if (!line.empty()) {
      on_mark(parse_mark_line(line, clock));
    }
  }
  partial_.erase(0, start);
}

Status send_mark(const std::string& text) {
  const char* path = ::getenv(kMarkVariable);
  if (!path || !*path) {
    return Error{std::string("not inside a canopy recording (") + kMarkVariable +
                 " is not set): run the command with 'canopy record -- COMMAND'"};
  }
  std::string ended = std::string("the recording that set ") + kMarkVariable + "=" + path + " has ended";
  ScopedFd fd(::open(path, O_WRONLY | O_APPEND | O_CLOEXEC));
  if (!fd) {
    return errno == ENOENT ? Error{ended} : Error{std::string("cannot write to ") + path + ": " + std::strerror(errno)};
  }
  // The recorder holds an exclusive lock while it records: getting one means it is gone.
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) {
    return Error{ended};
  }
  nlohmann::json record = {{"t", probe::now_epoch_ms()},
                           {"monotonic_ns", probe::now_monotonic_ns()},
                           {"pid", ::getppid()},
                           {"text", text}};
  std::string line = kRecordSeparator + json_dump(record) + "\n";
  // One write: appends of one write each do not interleave with other writers'.
  if (::write(fd.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
    return Error{std::string("cannot write to ") + path + ": " + std::strerror(errno)};
  }
  return Ok{};
}

}  // namespace canopy::record
