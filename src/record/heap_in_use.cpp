#include "record/heap_in_use.h"

namespace canopy::record {

void HeapInUseTable::reported(int64_t process_id, int connection, int64_t in_use_bytes) {
  auto [it, added] = latest_.try_emplace(process_id, Latest{connection, in_use_bytes});
  if (!added && it->second.connection <= connection) {
    it->second = {connection, in_use_bytes};
  }
}

void HeapInUseTable::ended(int64_t process_id, int connection) {
  auto it = latest_.find(process_id);
  if (it != latest_.end() && it->second.connection == connection) {
    latest_.erase(it);
  }
}

std::optional<int64_t> HeapInUseTable::in_use_bytes(int64_t process_id) const {
  auto it = latest_.find(process_id);
  return it == latest_.end() ? std::nullopt : std::optional<int64_t>(it->second.in_use_bytes);
}

}  // namespace canopy::record
