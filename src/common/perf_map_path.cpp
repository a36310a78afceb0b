#include "common/perf_map_path.h"

#include <algorithm>

namespace canopy {
namespace {

constexpr std::string_view kPrefix = "/tmp/perf-";
constexpr std::string_view kSuffix = ".map";

}  // namespace

std::string perf_map_path(int64_t pid) { return std::string(kPrefix) + std::to_string(pid) + std::string(kSuffix); }

bool is_perf_map_path(std::string_view path) {
  if (!path.starts_with(kPrefix) || !path.ends_with(kSuffix)) {
    return false;
  }
  std::string_view pid = path.substr(kPrefix.size(), path.size() - kPrefix.size() - kSuffix.size());
  return !pid.empty() && std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace canopy
