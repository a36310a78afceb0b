// Address ranges, each tagged with what it belongs to, found by address in O(log n):
// the index behind UnitIndex and UnitFunctions. Ranges may overlap; the one that starts
// last among those that hold an address is found.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace canopy::symbolize {

class AddressRanges {
 public:
  void add(uint64_t low, uint64_t high, size_t tag) {
    if (low < high) {
      ranges_.push_back({low, high, tag});
    }
  }
  // After the last add.
  void sort() {
    std::stable_sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) { return a.low < b.low; });
    highs_so_far_.clear();
    uint64_t high = 0;
    for (const Range& range : ranges_) {
      high = std::max(high, range.high);
      highs_so_far_.push_back(high);
    }
  }
  // The tag of the range that holds `address` and starts last; none when none holds it.
  std::optional<size_t> tag_at(uint64_t address) const {
    auto after = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                                  [](uint64_t a, const Range& r) { return a < r.low; });
    // Back from the last range that starts at or before the address, while one can still reach it.
    for (size_t i = static_cast<size_t>(after - ranges_.begin()); i-- > 0 && highs_so_far_[i] > address;) {
      if (address < ranges_[i].high) {
        return ranges_[i].tag;
      }
    }
    return std::nullopt;
  }

 private:
  struct Range {
    uint64_t low = 0;
    uint64_t high = 0;  // past the end
    size_t tag = 0;
  };
  std::vector<Range> ranges_;           // by low
  std::vector<uint64_t> highs_so_far_;  // the largest high among ranges_[0..i]
};

}  // namespace canopy::symbolize
