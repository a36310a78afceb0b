// The recording as JSON lines, one object per sample row, for jq and log pipelines
// (Splunk, Elastic): the time twice (ms since the epoch, and ISO 8601 in UTC), the
// process, and its values carried forward; a value the probe could not read is null.
//   {"t_ms":1795341600100,"time":"2026-11-22T10:00:00.100Z","process_id":1,"pid":4242,
//    "ppid":1,"name":"make","rss_bytes":...,"rss_anon_bytes":...,...}
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::exporters {

Status write_jsonl_samples(const store::Reader& reader, const std::function<void(std::string_view)>& out);

// "2026-11-22T10:00:00.100Z".
std::string iso8601_utc(int64_t t_ms);

}  // namespace canopy::exporters
