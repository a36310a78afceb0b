// The machine the tree runs on: fixed facts for the recording's meta table, and the
// per-tick memory figures that tell whether the machine was under pressure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/scoped_resource.h"
#include "probe/proc_parsers.h"

namespace canopy::probe {

struct HostInfo {
  std::string hostname;
  std::string kernel;  // uname -r
  std::string machine;  // uname -m
  int64_t cpu_count = 0;
  int64_t page_size_bytes = 0;
  int64_t clock_ticks_per_second = 0;
  int64_t boot_time_ms = 0;  // epoch ms of boot: start times in stat count from here
  std::string timezone;      // IANA name of the local zone, e.g. "Europe/Berlin"
  int64_t utc_offset_s = 0;  // of the local zone when the recording started
};
HostInfo read_host_info();

// Milliseconds since the Unix epoch, UTC.
int64_t now_epoch_ms();
// CLOCK_MONOTONIC in ns: the clock of the kernel's process event timestamps.
uint64_t now_monotonic_ns();

// Processes (and threads) the machine has created since boot: /proc/stat's
// `processes`. Its growth over a recording bounds what polling can have missed.
std::optional<int64_t> read_forks_since_boot();

// A machine-wide /proc file (meminfo, vmstat), kept open and re-read with pread on
// every tick.
class SystemFile {
 public:
  explicit SystemFile(const std::string& path);
  // Its whole text, valid until the next read; nullopt when it cannot be read.
  std::optional<std::string_view> read();

 private:
  ScopedFd fd_;
  std::string buffer_ = std::string(8192, '\0');
};

}  // namespace canopy::probe
