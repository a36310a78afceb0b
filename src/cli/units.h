// Sizes and durations as users write them on the command line.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

namespace canopy::cli {

// "64M", "1.5G" (K, M, G... are powers of 1024).
inline const CLI::AsSizeValue kSize(false);
// "90s", "500ms", "2m", "1h", in milliseconds.
inline const CLI::AsNumberWithUnit kDuration(std::map<std::string, int64_t>{{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}},
                                             CLI::AsNumberWithUnit::UNIT_REQUIRED, "DURATION");

}  // namespace canopy::cli
