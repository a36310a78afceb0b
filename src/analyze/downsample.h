// Downsampling a time series for a chart without hiding its peaks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace canopy::analyze {

// Which ticks to draw for the range [from_ms, to_ms] in about `points` points.
//
// The range is cut into points/2 buckets of equal time; each bucket keeps the tick
// where `total` is highest and the one where it is lowest, in time order. Every kept
// point is a real tick, so a stacked chart drawn from them is an exact snapshot at
// each point, and the highest total of the range is always kept. When the range holds
// no more ticks than `points`, all of them are kept.
//
// The nearest tick before the range and after it are added when they exist, so that
// lines reach the edges of the view. `t_ms` is ascending; the result holds ascending
// indices into it.
struct PickedTicks {
  std::vector<size_t> indices;
  bool exact = false;  // every tick of the range is kept
};
PickedTicks pick_ticks(const std::vector<int64_t>& t_ms, const std::vector<double>& total, int64_t from_ms,
                       int64_t to_ms, size_t points);

}  // namespace canopy::analyze
