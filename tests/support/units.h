// The units unit tests write their figures in.
#pragma once

#include <cstdint>

namespace canopy::testing {

inline constexpr int64_t kNsPerMs = 1'000'000;
inline constexpr int64_t kMiB = 1 << 20;

}  // namespace canopy::testing
