// The recording as the JSON that Onlooker (Windows) writes and Cutelooker reads:
//   [{"pid": 4242, "ppid": 1, "name": "make", "data": [
//     {"time": 1643811426000, "cpuUsage": 12.5, "memory": {"pageFaultCount": ..., ...}}, ...]}, ...]
// One entry per tick for every process alive at it (values carried forward), all
// stamped with that tick's time: Cutelooker stacks bars only where processes share the
// exact same time. One element per (pid, ppid, name), as Onlooker keys processes: the
// instances of a reused PID share one. The field mapping is in docs/formats.md.
#pragma once

#include <functional>
#include <string_view>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::exporters {

// cpuUsage is in percent of the whole machine (all its CPUs), as Onlooker computes it
// (process time over wall time, divided by the processor count); the count is the
// recording's meta cpu_count (1 when absent).
Status write_onlooker_json(const store::Reader& reader, const std::function<void(std::string_view)>& out);

// The same, holding at most `batch_entries` entries in memory at once (one pass over
// the samples per batch of processes); tests pass small numbers to exercise batching.
Status write_onlooker_json(const store::Reader& reader, const std::function<void(std::string_view)>& out,
                           size_t batch_entries);

}  // namespace canopy::exporters
