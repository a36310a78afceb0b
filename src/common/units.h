// Sizes and durations as users write them on the command line ("512M", "1.5G", "90s",
// "500ms"), and back, for messages that say what a flag takes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace canopy {

// "90s", "500ms", "1.5m", "1h", in milliseconds. The unit is required: "10" could be
// seconds or milliseconds.
Result<int64_t> parse_duration_ms(std::string_view text);
// A sampling interval: a duration as above ("250ms", "2s"), or a whole number of
// milliseconds, which is what --interval and Onlooker's ONLOOKER_POLL_INTERVAL have
// always taken.
Result<int64_t> parse_interval_ms(std::string_view text);
// "4096", "64K", "512M", "1.5G", in bytes ("K", "KB", "KiB" are all 1024, in any case).
Result<int64_t> parse_size_bytes(std::string_view text);

// As a user would write them: "1ms", "0s", "5m"; "4K", "0", "512M".
std::string duration_text(int64_t ms);
std::string size_text(int64_t bytes);

}  // namespace canopy
