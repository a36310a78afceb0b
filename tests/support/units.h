// The units unit tests write their figures in.
#pragma once

#include <cstdint>

namespace canopy::testing {

inline constexpr int64_t kNsPerMs = 1'000'000;

}  // namespace canopy::testing
