// analyze/: one process image's heap over time, per stack, as its snapshots saw it.
// The recording keeps a stack's totals only at the snapshots where they changed; a
// history keeps those change points and answers "what did this stack hold at snapshot
// k" by carrying the last one forward, so that a long recording with many snapshots
// and many stacks costs what it wrote, not snapshots x stacks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/heap_rows.h"
#include "store/recording.h"

namespace canopy::analyze {

// A stack's cumulative totals (estimates) in one image, from its start to a snapshot.
struct HeapStackTotals {
  int64_t stack_id = 0;
  int64_t allocated_bytes = 0;
  int64_t allocated_count = 0;
  int64_t freed_bytes = 0;
  int64_t freed_count = 0;

  // Never below 0: the freed figures are sums over a subset of the allocated ones,
  // and only rounding could take the difference under.
  int64_t in_use_bytes() const { return std::max<int64_t>(allocated_bytes - freed_bytes, 0); }
  int64_t in_use_count() const { return std::max<int64_t>(allocated_count - freed_count, 0); }
};

struct HeapStackChange {
  size_t snapshot = 0;  // index into HeapImageHistory::snapshots
  HeapStackTotals totals;
};

struct HeapImageHistory {
  const store::HeapImageRow* image = nullptr;
  std::vector<const store::HeapSnapshotRow*> snapshots;  // in time order
  // Per stack, its change points in snapshot order.
  std::map<int64_t, std::vector<HeapStackChange>> stacks;
  // Per stack, its sampled allocations that were alive at one snapshot at least, by birth.
  std::map<int64_t, std::vector<const store::HeapAllocationRow*>> allocations;
  // What the whole image had allocated (estimated) by each snapshot, cumulative.
  std::vector<int64_t> allocated_bytes;

  // The stack's totals at snapshot `index` (zeros before its first change).
  HeapStackTotals totals_at(int64_t stack_id, size_t index) const;
  // The index of the last snapshot at or before t_ms; none when t_ms precedes them all.
  std::optional<size_t> snapshot_at(int64_t t_ms) const;
};

// The process an image ran in: the recorder's link, else the process of that PID
// whose life holds the image's start (a link the recorder could not make as the image
// began, its process not yet seen).
std::optional<store::ProcessRow> heap_image_process(const store::HeapImageRow& image,
                                                    const std::vector<store::ProcessRow>& processes);

// Stacks to take as one: a stack's id -> the id of the stack that stands for it. Two
// recorded stacks can read alike, frame for frame: a compiler that unrolls a loop or
// copies a call (clang does both) gives one line of source several return addresses,
// and so one allocation site several stacks (HeapStackNames::stacks_that_read_alike,
// in symbolize/heap_stack_names.h, finds them).
using HeapStackAliases = std::unordered_map<int64_t, int64_t>;

// One history per image of the profile, in the profile's image order, each aliased
// stack merged into the one that stands for it. Points into `profile`, which must
// outlive them.
std::vector<HeapImageHistory> heap_histories(const store::HeapProfile& profile, const HeapStackAliases& aliases = {});

// The estimated bytes and count of sampled allocations: each stands for 1 / p of its kind.
struct HeapEstimate {
  double bytes = 0;
  double count = 0;
  int64_t sampled = 0;

  void add(const store::HeapAllocationRow& allocation) {
    bytes += static_cast<double>(allocation.size_bytes) / allocation.probability;
    count += 1 / allocation.probability;
    ++sampled;
  }
};

// Keeps the first `top` of `rows`, which come largest first; returns how many were left
// out and the sum of amount_of over them, for the "N more in M other stacks" line.
template <typename Row, typename AmountOf>
auto keep_top(std::vector<Row>& rows, size_t top, AmountOf amount_of) {
  std::pair<int64_t, decltype(amount_of(rows.front()))> left_out{0, {}};
  for (size_t i = top; i < rows.size(); ++i) {
    ++left_out.first;
    left_out.second += amount_of(rows[i]);
  }
  if (rows.size() > top) {
    rows.resize(top);
  }
  return left_out;
}

// Whether a sampled allocation was alive at t_ms: born by then, and not yet seen freed.
inline bool alive_at(const store::HeapAllocationRow& allocation, int64_t t_ms) {
  return allocation.born_ms <= t_ms && (!allocation.freed_ms || *allocation.freed_ms > t_ms);
}

}  // namespace canopy::analyze
