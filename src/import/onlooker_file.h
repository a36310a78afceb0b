// Reads the JSON that Onlooker (Windows) writes:
//   [{"pid": 3912, "ppid": 13200, "name": "MSBuild.exe", "data": [
//     {"time": 1655924492099, "cpuUsage": 0, "memory": {"workingSetSize": 39813120,
//      "pagefileUsage": 26247168, "peakWorkingSetSize": ..., ...}}, ...]}, ...]
// into plain structs, checking every field it uses: a malformed file is refused with
// "FILE:LINE:COLUMN: reason" naming the process and field. Only what Cutelooker reads
// is required (pid, ppid, name, data, time, cpuUsage, workingSetSize, pagefileUsage);
// the other memory counters are used when present. Unknown fields are ignored.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace canopy::importers {

// Windows PIDs are DWORDs.
inline constexpr int64_t kMaxWindowsPid = 4'294'967'295;

struct OnlookerEntry {
  int64_t t_ms = 0;            // since the epoch, UTC
  double cpu_percent = 0;      // of the whole machine (all its CPUs), since the previous entry
  int64_t working_set_bytes = 0;
  int64_t pagefile_bytes = 0;  // private committed memory: on Windows PagefileUsage == PrivateUsage
  std::optional<int64_t> peak_working_set_bytes;
  std::optional<int64_t> page_faults;  // cumulative, soft and hard
};

struct OnlookerProcess {
  int64_t pid = 0;
  int64_t ppid = 0;
  std::string name;                    // UTF-8
  std::vector<OnlookerEntry> entries;  // in time order, no two at the same time
};

// Every process of the file, in file order; ones with no entries are left out.
Result<std::vector<OnlookerProcess>> read_onlooker_file(
    const std::string& path, const std::function<void(int64_t bytes_done, int64_t bytes_total)>& progress = {});

}  // namespace canopy::importers
