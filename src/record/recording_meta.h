// What the recording's meta table says about the run: written at the start (host,
// command, interval, probes) and at the end (end time, exit status, CPU of the tree and
// of the recorder itself).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

#include "probe/system.h"
#include "record/options.h"
#include "store/writer.h"

namespace canopy::record {

void write_start_meta(store::Writer& writer, const RecordOptions& options, const probe::HostInfo& host,
                      int64_t start_ms, pid_t root);

// `root_wait_status`: the command's wait status (run mode). Tree CPU comes from
// getrusage(RUSAGE_CHILDREN), exact for every process of the tree that was waited for.
void write_end_meta(store::Writer& writer, int64_t end_ms, int64_t processes, std::optional<int> root_wait_status,
                    bool run_mode);

}  // namespace canopy::record
