#include "record/jit_symbol_maps.h"

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "common/perf_map_path.h"

namespace canopy::record {
namespace {

constexpr std::chrono::seconds kLookAgainAfter{1};

// perf's rule, the recorder's user or root, or the process's own user while the
// process is there to ask (its samples and heap snapshots are often read after it ended).
bool trusted_map(pid_t pid) {
  struct stat map {};
  if (::lstat(perf_map_path(pid).c_str(), &map) != 0 || !S_ISREG(map.st_mode)) {
    return false;
  }
  if (map.st_uid == 0 || map.st_uid == ::geteuid()) {
    return true;
  }
  struct stat process {};
  return ::stat(("/proc/" + std::to_string(pid)).c_str(), &process) == 0 && map.st_uid == process.st_uid;
}

}  // namespace

bool JitSymbolMaps::has_map(pid_t pid) {
  auto now = std::chrono::steady_clock::now();
  auto [seen, added] = seen_.try_emplace(pid);
  if (added || now - seen->second.at >= kLookAgainAfter) {
    seen->second = {trusted_map(pid), now};
  }
  return seen->second.has_map;
}

}  // namespace canopy::record
