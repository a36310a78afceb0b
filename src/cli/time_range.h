// The --from and --to of `canopy profile`, `canopy heap` and `canopy export` (times
// since the recording's start), checked in one place: each bad value is one line that
// names the flag, the value and why, and the commands exit 2 as for any bad flag value.
#pragma once

#include <cstdint>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::cli {

// Before the recording is read: --to after --from (a negative value: the flag not given).
Status check_time_range(int64_t from_ms, int64_t to_ms);

// Once it is open: --from before the recording's end, which would select nothing. Only a
// finished recording's end is known from its meta; one still being written, or whose
// recorder was killed, is not refused.
Status check_from_within(int64_t from_ms, const store::Reader& reader);

}  // namespace canopy::cli
