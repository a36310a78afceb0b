#include "record/jit_symbol_maps.h"

#include <sys/stat.h>

#include <string>

#include "common/perf_map_path.h"

namespace canopy::record {
namespace {

constexpr std::chrono::seconds kLookAgainAfter{1};

bool map_of_its_own(pid_t pid) {
  struct stat map {};
  struct stat process {};
  return ::lstat(perf_map_path(pid).c_str(), &map) == 0 && S_ISREG(map.st_mode) &&
         ::stat(("/proc/" + std::to_string(pid)).c_str(), &process) == 0 && map.st_uid == process.st_uid;
}

}  // namespace

bool JitSymbolMaps::has_map(pid_t pid) {
  auto now = std::chrono::steady_clock::now();
  auto [seen, added] = seen_.try_emplace(pid);
  if (added || now - seen->second.at >= kLookAgainAfter) {
    seen->second = {map_of_its_own(pid), now};
  }
  return seen->second.has_map;
}

}  // namespace canopy::record
