#include "analyze/heap_history.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace canopy::analyze {

HeapStackTotals HeapImageHistory::totals_at(int64_t stack_id, size_t index) const {
  auto found = stacks.find(stack_id);
  if (found == stacks.end()) {
    return {.stack_id = stack_id};
  }
  const std::vector<HeapStackChange>& changes = found->second;
  auto after = std::upper_bound(changes.begin(), changes.end(), index,
                                [](size_t i, const HeapStackChange& change) { return i < change.snapshot; });
  return after == changes.begin() ? HeapStackTotals{.stack_id = stack_id} : std::prev(after)->totals;
}

std::optional<size_t> HeapImageHistory::snapshot_at(int64_t t_ms) const {
  auto after = std::upper_bound(snapshots.begin(), snapshots.end(), t_ms,
                                [](int64_t t, const store::HeapSnapshotRow* s) { return t < s->t_ms; });
  if (after == snapshots.begin()) {
    return std::nullopt;
  }
  return static_cast<size_t>(after - snapshots.begin()) - 1;
}

std::optional<store::ProcessRow> heap_image_process(const store::HeapImageRow& image,
                                                    const std::vector<store::ProcessRow>& processes) {
  for (const store::ProcessRow& process : processes) {
    if (image.process_id ? process.id == *image.process_id
                         : process.pid == image.pid && process.start_ms <= image.started_ms &&
                               image.started_ms <= process.end_ms.value_or(image.started_ms)) {
      return process;
    }
  }
  return std::nullopt;
}

namespace {

// Merges the stacks of `history` that `aliases` names into the ones that stand for them:
// at each snapshot where any of a group changed, the group's totals are the sum of its
// members' (each carried forward), and its sampled allocations are theirs, by birth.
void merge_aliased_stacks(HeapImageHistory& history, const HeapStackAliases& aliases) {
  std::map<int64_t, std::vector<int64_t>> groups;  // standing id -> its members here
  for (const auto& [stack_id, changes] : history.stacks) {
    auto alias = aliases.find(stack_id);
    groups[alias == aliases.end() ? stack_id : alias->second].push_back(stack_id);
  }
  std::map<int64_t, std::vector<HeapStackChange>> merged;
  for (const auto& [standing, members] : groups) {
    if (members.size() == 1 && members.front() == standing) {
      merged[standing] = std::move(history.stacks[standing]);
      continue;
    }
    std::set<size_t> snapshots;
    for (int64_t member : members) {
      for (const HeapStackChange& change : history.stacks[member]) {
        snapshots.insert(change.snapshot);
      }
    }
    std::vector<HeapStackChange>& changes = merged[standing];
    for (size_t snapshot : snapshots) {
      HeapStackTotals sum{.stack_id = standing};
      for (int64_t member : members) {
        HeapStackTotals t = history.totals_at(member, snapshot);
        sum.allocated_bytes += t.allocated_bytes;
        sum.allocated_count += t.allocated_count;
        sum.freed_bytes += t.freed_bytes;
        sum.freed_count += t.freed_count;
      }
      changes.push_back({snapshot, sum});
    }
  }
  history.stacks = std::move(merged);

  std::map<int64_t, std::vector<const store::HeapAllocationRow*>> allocations;
  for (auto& [stack_id, rows] : history.allocations) {
    auto alias = aliases.find(stack_id);
    auto& into = allocations[alias == aliases.end() ? stack_id : alias->second];
    into.insert(into.end(), rows.begin(), rows.end());
  }
  for (auto& [stack_id, rows] : allocations) {
    std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) { return a->born_ms < b->born_ms; });
  }
  history.allocations = std::move(allocations);
}

// Fills history.allocated_bytes from the stacks' change points, each stack's rise in
// allocated bytes added at the snapshot where it was written.
void sum_allocated_bytes(HeapImageHistory& history) {
  std::vector<int64_t> added(history.snapshots.size(), 0);
  for (const auto& [stack_id, changes] : history.stacks) {
    int64_t previous = 0;
    for (const HeapStackChange& change : changes) {
      added[change.snapshot] += change.totals.allocated_bytes - previous;
      previous = change.totals.allocated_bytes;
    }
  }
  history.allocated_bytes.resize(added.size());
  int64_t sum = 0;
  for (size_t k = 0; k < added.size(); ++k) {
    sum += added[k];
    history.allocated_bytes[k] = sum;
  }
}

}  // namespace

std::vector<HeapImageHistory> heap_histories(const store::HeapProfile& profile, const HeapStackAliases& aliases) {
  std::vector<HeapImageHistory> histories(profile.images.size());
  std::unordered_map<int64_t, size_t> image_index;
  for (size_t i = 0; i < profile.images.size(); ++i) {
    histories[i].image = &profile.images[i];
    image_index[profile.images[i].id] = i;
  }
  for (const store::HeapSnapshotRow& snapshot : profile.snapshots) {
    histories[image_index.at(snapshot.image_id)].snapshots.push_back(&snapshot);
  }
  // Where each snapshot sits in its image's time order.
  std::unordered_map<int64_t, std::pair<size_t, size_t>> snapshot_place;  // id -> (image, index)
  for (size_t i = 0; i < histories.size(); ++i) {
    auto& snapshots = histories[i].snapshots;
    std::stable_sort(snapshots.begin(), snapshots.end(), [](const auto* a, const auto* b) { return a->t_ms < b->t_ms; });
    for (size_t k = 0; k < snapshots.size(); ++k) {
      snapshot_place[snapshots[k]->id] = {i, k};
    }
  }
  for (const store::HeapStackTotalsRow& row : profile.totals) {
    auto [image, index] = snapshot_place.at(row.snapshot_id);
    histories[image].stacks[row.stack_id].push_back(
        {index, {row.stack_id, row.allocated_bytes, row.allocated_count, row.freed_bytes, row.freed_count}});
  }
  for (HeapImageHistory& history : histories) {
    for (auto& [stack_id, changes] : history.stacks) {
      std::stable_sort(changes.begin(), changes.end(),
                       [](const HeapStackChange& a, const HeapStackChange& b) { return a.snapshot < b.snapshot; });
    }
    sum_allocated_bytes(history);
  }
  for (const store::HeapAllocationRow& allocation : profile.allocations) {
    histories[image_index.at(allocation.image_id)].allocations[allocation.stack_id].push_back(&allocation);
  }
  if (!aliases.empty()) {
    for (HeapImageHistory& history : histories) {
      merge_aliased_stacks(history, aliases);
    }
  }
  return histories;
}

}  // namespace canopy::analyze
