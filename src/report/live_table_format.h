// report/: the compact table `canopy record --live` redraws once a second, like top
// for one tree: headlines (time, processes, CPU; resident and the peak so far) and the
// biggest processes by resident memory, with their heap in use under --heap. Plain
// lines: the terminal's handling (where they go, redrawing in place) is the CLI's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "live/live_figures.h"

namespace canopy::report {

// Two headlines (the tree now; its memory and peak), a column header, up to `rows` processes (largest resident first, then
// by PID) and, when some did not fit, a line saying how many; each cut to `width`
// columns. `start_ms`: the recording's start, for the elapsed time.
std::vector<std::string> live_table_lines(const live::LiveFigures& figures, int64_t start_ms, size_t rows,
                                          size_t width);

}  // namespace canopy::report
