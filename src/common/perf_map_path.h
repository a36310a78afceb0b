// Where a JIT (V8 with --perf-basic-prof, CPython with -X perf, Java's perf-map-agent,
// LuaJIT, .NET) writes the names of the code it generates, for perf and canopy to
// read: /tmp/perf-PID.map. The recorder names a process's JIT code by this path, a
// module of its own (record/jit_symbol_maps.h), and the symbolizer reads the file by it
// (symbolize/perf_map.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace canopy {

std::string perf_map_path(int64_t pid);

// Whether `path` is one perf_map_path gives: "/tmp/perf-" digits ".map".
bool is_perf_map_path(std::string_view path);

}  // namespace canopy
