// Rows whose ids the writer gives out, dense from 1 in the order added, and which wait
// in memory for the next commit. The waiting rows are always the newest, so the row
// of an id is found by arithmetic, and an id below them was written at an earlier
// commit: an update of it must go to the file.
#pragma once

#include <cstdint>
#include <vector>

namespace canopy::store {

template <typename Row>
class PendingRows {
 public:
  // Returns the id given to the row.
  int64_t add(const Row& row) {
    Row& added = rows_.emplace_back(row);
    added.id = ++ids_given_;
    return added.id;
  }
  // The waiting row of `id`, or nullptr once it is written (or was never given).
  Row* find(int64_t id) {
    int64_t index = id - (ids_given_ - static_cast<int64_t>(rows_.size())) - 1;
    return index >= 0 && index < static_cast<int64_t>(rows_.size()) ? &rows_[static_cast<size_t>(index)] : nullptr;
  }
  const std::vector<Row>& rows() const { return rows_; }
  auto begin() const { return rows_.begin(); }
  auto end() const { return rows_.end(); }
  // After the rows are written; the ids go on from where they were.
  void clear() { rows_.clear(); }

 private:
  int64_t ids_given_ = 0;
  std::vector<Row> rows_;
};

}  // namespace canopy::store
