#include "analyze/heap_growth.h"

#include <algorithm>
#include <tuple>

#include "analyze/heap_summary.h"

namespace canopy::analyze {

std::vector<HeapImageGrowth> heap_growth(const std::vector<HeapImageHistory>& histories,
                                         const std::vector<store::ProcessRow>& processes, int64_t from_ms,
                                         int64_t to_ms, size_t top) {
  std::vector<HeapImageGrowth> images;
  for (const HeapImageHistory& history : histories) {
    std::optional<size_t> to = history.snapshot_at(to_ms);
    if (!to || history.snapshots.back()->t_ms < from_ms) {
      continue;  // no snapshot yet by `to`, or over before `from`
    }
    // An image that began after `from` grew from nothing.
    std::optional<size_t> from = history.snapshot_at(from_ms);
    HeapImageGrowth growth{history.image, heap_image_process(*history.image, processes)};
    growth.from_ms = from ? history.snapshots[*from]->t_ms : history.image->started_ms;
    growth.to_ms = history.snapshots[*to]->t_ms;
    growth.from_in_use_bytes = from ? history.snapshots[*from]->in_use_bytes : 0;
    growth.to_in_use_bytes = history.snapshots[*to]->in_use_bytes;
    double seconds = static_cast<double>(growth.to_ms - growth.from_ms) / 1000.0;
    for (const auto& [stack_id, changes] : history.stacks) {
      int64_t before = from ? history.totals_at(stack_id, *from).in_use_bytes() : 0;
      int64_t after = history.totals_at(stack_id, *to).in_use_bytes();
      if (after > before) {
        growth.top.push_back({stack_id, before, after, seconds > 0 ? static_cast<double>(after - before) / seconds : 0,
                              {}});
      }
    }
    std::sort(growth.top.begin(), growth.top.end(), [](const HeapStackGrowth& a, const HeapStackGrowth& b) {
      int64_t grew_a = a.to_bytes - a.from_bytes;
      int64_t grew_b = b.to_bytes - b.from_bytes;
      return grew_a != grew_b ? grew_a > grew_b : a.stack_id < b.stack_id;
    });
    std::tie(growth.other_stacks, growth.other_bytes) =
        keep_top(growth.top, top, [](const HeapStackGrowth& stack) { return stack.to_bytes - stack.from_bytes; });
    for (HeapStackGrowth& stack : growth.top) {
      stack.verdict = judge_heap_stack(history, stack.stack_id, *to);
    }
    images.push_back(std::move(growth));
  }
  std::stable_sort(images.begin(), images.end(), [](const HeapImageGrowth& a, const HeapImageGrowth& b) {
    return a.image->started_ms < b.image->started_ms;
  });
  return images;
}

std::vector<HeapImageAged> heap_older_than(const std::vector<HeapImageHistory>& histories,
                                           const std::vector<store::ProcessRow>& processes, int64_t age_ms,
                                           std::optional<int64_t> at_ms, size_t top) {
  std::vector<HeapImageAged> images;
  for (const HeapImageHistory& history : histories) {
    std::optional<size_t> at =
        at_ms ? history.snapshot_at(*at_ms)
              : (history.snapshots.empty() ? std::nullopt : std::optional<size_t>(history.snapshots.size() - 1));
    if (!at) {
      continue;
    }
    HeapImageAged aged{history.image, heap_image_process(*history.image, processes), history.snapshots[*at]->t_ms};
    for (const auto& [stack_id, allocations] : history.allocations) {
      HeapStackAged stack{stack_id};
      for (const store::HeapAllocationRow* allocation : allocations) {
        if (alive_at(*allocation, aged.t_ms) && allocation->born_ms <= aged.t_ms - age_ms) {
          stack.older.add(*allocation);
          if (stack.oldest_born_ms == 0 || allocation->born_ms < stack.oldest_born_ms) {
            stack.oldest_born_ms = allocation->born_ms;
          }
        }
      }
      if (stack.older.sampled > 0) {
        aged.older_bytes += stack.older.bytes;
        aged.top.push_back(stack);
      }
    }
    std::sort(aged.top.begin(), aged.top.end(), [](const HeapStackAged& a, const HeapStackAged& b) {
      return a.older.bytes != b.older.bytes ? a.older.bytes > b.older.bytes : a.stack_id < b.stack_id;
    });
    std::tie(aged.other_stacks, aged.other_bytes) =
        keep_top(aged.top, top, [](const HeapStackAged& stack) { return stack.older.bytes; });
    for (HeapStackAged& stack : aged.top) {
      stack.verdict = judge_heap_stack(history, stack.stack_id, *at);
    }
    images.push_back(std::move(aged));
  }
  std::stable_sort(images.begin(), images.end(), [](const HeapImageAged& a, const HeapImageAged& b) {
    return a.image->started_ms < b.image->started_ms;
  });
  return images;
}

}  // namespace canopy::analyze
