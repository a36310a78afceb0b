#include "analyze/downsample.h"

#include <algorithm>

namespace canopy::analyze {

PickedTicks pick_ticks(const std::vector<int64_t>& t_ms, const std::vector<double>& total, int64_t from_ms,
                       int64_t to_ms, size_t points) {
  PickedTicks picked;
  size_t first = std::lower_bound(t_ms.begin(), t_ms.end(), from_ms) - t_ms.begin();
  size_t end = std::upper_bound(t_ms.begin(), t_ms.end(), to_ms) - t_ms.begin();
  if (first > 0) {
    picked.indices.push_back(first - 1);
  }
  size_t in_range = end > first ? end - first : 0;
  if (in_range <= std::max<size_t>(points, 1)) {
    for (size_t i = first; i < end; ++i) {
      picked.indices.push_back(i);
    }
    picked.exact = true;
  } else {
    size_t buckets = std::max<size_t>(points / 2, 1);
    // Bucket b holds the ticks with time in [from + b*span/buckets, from + (b+1)*span/buckets).
    double span = static_cast<double>(to_ms - from_ms) + 1;
    size_t i = first;
    for (size_t b = 0; b < buckets && i < end; ++b) {
      double bucket_end = static_cast<double>(from_ms) + span * static_cast<double>(b + 1) / static_cast<double>(buckets);
      if (static_cast<double>(t_ms[i]) >= bucket_end) {
        continue;  // an empty bucket: a gap in the recording
      }
      size_t high = i;
      size_t low = i;
      for (; i < end && static_cast<double>(t_ms[i]) < bucket_end; ++i) {
        if (total[i] > total[high]) {
          high = i;
        }
        if (total[i] < total[low]) {
          low = i;
        }
      }
      picked.indices.push_back(std::min(high, low));
      if (high != low) {
        picked.indices.push_back(std::max(high, low));
      }
    }
  }
  if (end < t_ms.size()) {
    picked.indices.push_back(end);
  }
  return picked;
}

}  // namespace canopy::analyze
