#include "probe/system.h"

#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <climits>
#include <ctime>
#include <fstream>
#include <limits>

#include "probe/process_files.h"

namespace canopy::probe {
namespace {

int64_t clock_ms(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

std::string local_timezone_name() {
  if (const char* tz = ::getenv("TZ"); tz && *tz) {
    return *tz == ':' ? tz + 1 : tz;
  }
  std::ifstream timezone_file("/etc/timezone");
  std::string name;
  if (std::getline(timezone_file, name) && !name.empty()) {
    return name;
  }
  // /etc/localtime -> /usr/share/zoneinfo/Europe/Berlin
  char target[PATH_MAX];
  ssize_t n = ::readlink("/etc/localtime", target, sizeof target - 1);
  if (n > 0) {
    std::string path(target, static_cast<size_t>(n));
    if (size_t at = path.find("zoneinfo/"); at != path.npos) {
      return path.substr(at + 9);
    }
  }
  return "UTC";
}

}  // namespace

uint64_t now_monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

int64_t now_epoch_ms() { return clock_ms(CLOCK_REALTIME); }

HostInfo read_host_info() {
  HostInfo host;
  utsname uts{};
  if (::uname(&uts) == 0) {
    host.hostname = uts.nodename;
    host.kernel = uts.release;
    host.machine = uts.machine;
  }
  host.cpu_count = ::sysconf(_SC_NPROCESSORS_ONLN);
  host.page_size_bytes = ::sysconf(_SC_PAGESIZE);
  host.clock_ticks_per_second = ::sysconf(_SC_CLK_TCK);
  // Start times in /proc/PID/stat count on the boot-time clock (which includes
  // suspend), so the epoch of boot is realtime minus boottime, to the millisecond.
  host.boot_time_ms = clock_ms(CLOCK_REALTIME) - clock_ms(CLOCK_BOOTTIME);
  host.timezone = local_timezone_name();
  time_t now = ::time(nullptr);
  tm local{};
  ::localtime_r(&now, &local);
  host.utc_offset_s = local.tm_gmtoff;
  return host;
}

SystemFile::SystemFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}

std::optional<std::string_view> SystemFile::read() { return pread_all(fd_.get(), buffer_); }

std::optional<int64_t> read_forks_since_boot() {
  std::ifstream stat("/proc/stat");
  for (std::string key; stat >> key;) {
    if (key == "processes") {
      int64_t forks = 0;
      return stat >> forks ? std::optional<int64_t>(forks) : std::nullopt;
    }
    stat.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return std::nullopt;
}

}  // namespace canopy::probe
