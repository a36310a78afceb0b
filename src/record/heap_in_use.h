// Each live process's heap in use as its heap profiler last reported it (record
// --heap), for the live figures: the heap ingest writes it at each snapshot and at each
// connection's end, the sampling loop reads it at each tick. Both run on the loop's
// thread, so a read is a hash lookup and no lock. Only figures of connections still
// open are kept: a process that ended, or exec'd a program that has not reported yet,
// has none.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

namespace canopy::record {

class HeapInUseTable {
 public:
  // A snapshot of the connection `connection` from the process `process_id` (the
  // recording's process row). Connections are numbered in the order they opened: a
  // process that exec'd may still have its old program's connection open, unread,
  // when its new program reports, and the newer one's figure wins.
  void reported(int64_t process_id, int connection, int64_t in_use_bytes);
  // The connection ended (the program exited or exec'd): its figure goes.
  void ended(int64_t process_id, int connection);

  // The latest figure of the process, if a connection of it has reported and is open.
  std::optional<int64_t> in_use_bytes(int64_t process_id) const;
  size_t size() const { return latest_.size(); }

 private:
  struct Latest {
    int connection;
    int64_t in_use_bytes;
  };
  std::unordered_map<int64_t, Latest> latest_;  // by process id
};

}  // namespace canopy::record
