// The recording in the Trace Event Format (the JSON that Perfetto UI and
// chrome://tracing open): {"traceEvents": [...], "displayTimeUnit": "ms"}, times in
// microseconds since the epoch, pid and tid on every event.
//   - "M" metadata: process_name, thread_name and process_sort_index per PID;
//   - "X" complete events: each process's lifetime on its main thread, with its
//     command line, exit and peak in args;
//   - "C" counters: one track per process and metric ("Resident bytes", "Anon bytes",
//     "Swap bytes", "PSS bytes" when recorded, "CPU percent" of one CPU), written at
//     the ticks where the value changed, and 0 when the process ends;
//   - "i" instant events: log lines, markers, captured output, the recorder's own
//     events; "s":"p" on their process when they have one, else "s":"g" (global).
// A PID the recording saw twice (reused) is one process in the trace: its lifetimes
// follow each other on one track, and its name lists both names.
#pragma once

#include <functional>
#include <string_view>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::exporters {

Status write_chrome_trace(const store::Reader& reader, const std::function<void(std::string_view)>& out);

}  // namespace canopy::exporters
