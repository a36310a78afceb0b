#include "analyze/heap_rss.h"

#include <algorithm>
#include <array>

namespace canopy::analyze {

Result<RssSeries> read_rss(const store::Reader& reader, const std::set<int64_t>& process_ids) {
  RssSeries series;
  if (process_ids.empty()) {
    return series;
  }
  constexpr std::array columns = {store::kRssAnonBytes, store::kRssFileBytes, store::kRssShmemBytes};
  Status read = reader.for_each_sample(
      [&](int64_t t_ms, int64_t process_id, const store::SampleValues& values) {
        if (!process_ids.contains(process_id)) {
          return;
        }
        // A process that has exited (a zombie until reaped) maps nothing: its last
        // samples say 0, not what it held.
        if (auto rss = values.rss_bytes(); rss && *rss > 0) {
          series[process_id].push_back({t_ms, *rss, values[store::kRssAnonBytes].value_or(0)});
        }
      },
      columns);
  if (!read) {
    return read.error();
  }
  return series;
}

std::optional<RssPoint> rss_at(const RssSeries& series, int64_t process_id, int64_t t_ms) {
  auto found = series.find(process_id);
  if (found == series.end()) {
    return std::nullopt;
  }
  const std::vector<RssPoint>& points = found->second;
  auto after = std::upper_bound(points.begin(), points.end(), t_ms,
                                [](int64_t t, const RssPoint& point) { return t < point.t_ms; });
  if (after == points.begin()) {
    return points.empty() ? std::nullopt : std::optional(points.front());
  }
  auto before = std::prev(after);
  if (after != points.end() && after->t_ms - t_ms < t_ms - before->t_ms) {
    return *after;
  }
  return *before;
}

}  // namespace canopy::analyze
