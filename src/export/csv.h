// The recording as CSV (RFC 4180: comma-separated, CRLF line ends, a header row,
// fields with a comma, quote or line break quoted and their quotes doubled), for
// spreadsheets, pandas and R.
//   wide: one row per tick, one column per process ("NAME (pid: PID, ppid: PPID)", as
//         Onlooker's own CSV labels them) holding one figure, empty where the process
//         was not alive: t_ms,make (pid: 4242, ppid: 1),cc1 (pid: 4250, ppid: 4242)
//   long: one row per process and sample row, every column:
//         t_ms,process_id,pid,ppid,name,rss_bytes,rss_anon_bytes,...
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::exporters {

// What a wide CSV holds: resident memory (rss_bytes, the default), CPU in percent of
// one CPU over the interval before each tick (cpu_percent), or any sample column by
// its name (swap_bytes, pss_bytes, ...). Known names are kWideCsvMetrics.
inline constexpr const char* kWideCsvMetrics = "rss_bytes, cpu_percent, or a sample column (rss_anon_bytes, ...)";
bool is_wide_csv_metric(std::string_view metric);

Status write_csv_wide(const store::Reader& reader, std::string_view metric,
                      const std::function<void(std::string_view)>& out);
Status write_csv_long(const store::Reader& reader, const std::function<void(std::string_view)>& out);

// `field` as one CSV field: quoted when it holds a comma, a quote, CR or LF.
std::string csv_field(std::string_view field);

}  // namespace canopy::exporters
