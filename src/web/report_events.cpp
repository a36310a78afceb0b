#include "web/report_events.h"

#include <algorithm>

namespace canopy::web {
namespace {

// Shares `budget` among `counts`: each gets all it has, or an equal share of what the
// smaller ones left (water filling). The quotas add up to at most the budget.
std::vector<size_t> water_fill(const std::vector<size_t>& counts, size_t budget) {
  std::vector<size_t> order(counts.size());
  for (size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return counts[a] < counts[b]; });
  std::vector<size_t> quotas(counts.size(), 0);
  size_t remaining = budget;
  for (size_t k = 0; k < order.size(); ++k) {
    size_t share = remaining / (order.size() - k);
    quotas[order[k]] = std::min(counts[order[k]], share);
    remaining -= quotas[order[k]];
  }
  return quotas;
}

// `quota` of `positions` (one kind's lines, in time order), evenly over time: the
// kind's time span is cut into equal buckets that share the quota by water filling, so
// a quiet minute keeps its few lines and a burst is thinned; within a bucket, evenly
// spaced lines.
void pick_evenly(const EventList& list, const std::vector<uint32_t>& positions, size_t quota,
                 std::vector<size_t>& out) {
  if (quota >= positions.size()) {
    out.insert(out.end(), positions.begin(), positions.end());
    return;
  }
  if (quota == 0) {
    return;
  }
  int64_t first_ms = list[positions.front()].t_ms;
  double span_ms = static_cast<double>(list[positions.back()].t_ms - first_ms) + 1;
  size_t buckets = std::min<size_t>(quota, 1000);
  std::vector<size_t> begins(buckets + 1, positions.size());
  std::vector<size_t> counts(buckets, 0);
  for (size_t i = positions.size(); i-- > 0;) {
    auto b = static_cast<size_t>(static_cast<double>(list[positions[i]].t_ms - first_ms) / span_ms *
                                 static_cast<double>(buckets));
    b = std::min(b, buckets - 1);
    begins[b] = i;
    ++counts[b];
  }
  std::vector<size_t> quotas = water_fill(counts, quota);
  for (size_t b = 0; b < buckets; ++b) {
    for (size_t j = 0; j < quotas[b]; ++j) {
      size_t k = static_cast<size_t>((static_cast<double>(j) + 0.5) * static_cast<double>(counts[b]) /
                                     static_cast<double>(quotas[b]));
      out.push_back(positions[begins[b] + std::min(k, counts[b] - 1)]);
    }
  }
}

bool is_dense_kind(const std::string& kind) {
  return kind == "log" || kind == "stdout" || kind == "stderr" || kind == "start" || kind == "end";
}

}  // namespace

std::vector<size_t> pick_report_events(const EventList& list, size_t budget) {
  std::vector<std::vector<uint32_t>> by_kind(list.kinds().size());
  for (size_t i = 0; i < list.size(); ++i) {
    by_kind[list[i].kind].push_back(static_cast<uint32_t>(i));
  }
  std::vector<size_t> picked;
  size_t remaining = budget;
  // The sparse kinds first (exec, signal, mark, exit, ...), then the dense ones.
  for (bool dense : {false, true}) {
    std::vector<size_t> kinds;
    std::vector<size_t> counts;
    for (size_t k = 0; k < by_kind.size(); ++k) {
      if (is_dense_kind(list.kinds()[k]) == dense) {
        kinds.push_back(k);
        counts.push_back(by_kind[k].size());
      }
    }
    std::vector<size_t> quotas = water_fill(counts, remaining);
    for (size_t j = 0; j < kinds.size(); ++j) {
      pick_evenly(list, by_kind[kinds[j]], quotas[j], picked);
      remaining -= quotas[j];
    }
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

size_t text_cap(const std::vector<std::string>& texts, size_t budget, size_t most) {
  std::vector<size_t> lengths;
  for (const std::string& text : texts) {
    lengths.push_back(text.size());
  }
  std::sort(lengths.begin(), lengths.end());
  size_t remaining = budget;
  for (size_t i = 0; i < lengths.size(); ++i) {
    size_t share = remaining / (lengths.size() - i);
    if (lengths[i] > share) {
      return std::min(share, most);
    }
    remaining -= lengths[i];
  }
  return most;
}

}  // namespace canopy::web
