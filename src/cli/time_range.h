// The --from and --to of `canopy profile`, `canopy heap` and `canopy export` (times
// since the recording's start), checked in one place: each bad value is one line that
// names the flag, the value and why, and the commands exit 2 as for any bad flag value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::cli {

// Before the recording is read: --to after --from (a negative value: the flag not given).
Status check_time_range(int64_t from_ms, int64_t to_ms);

// The recording, opened, once check_time_range passed, with --from before its end (past
// it, it would select nothing); else nullopt, after one line saying why, with
// `exit_status` set: 2 for a flag, 1 when the recording cannot be read. Only a finished
// recording's end is known from its meta: one still being written, or whose recorder
// was killed, takes any --from.
std::optional<store::Reader> open_recording_in_range(const std::string& path, int64_t from_ms, int64_t to_ms,
                                                     int& exit_status);

}  // namespace canopy::cli
