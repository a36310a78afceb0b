// analyze/: the resident memory of profiled processes, to set beside their heap: what
// RSS holds beyond the heap in use is what the allocator keeps (freed but not returned
// to the kernel, fragmentation, its arenas) plus stacks, code and other mappings.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::analyze {

struct RssPoint {
  int64_t t_ms = 0;
  int64_t rss_bytes = 0;
  int64_t anon_bytes = 0;  // the part no file backs: where a heap lives
};

// Per process id, its samples in time order.
using RssSeries = std::map<int64_t, std::vector<RssPoint>>;

// The samples of these processes only (two columns read; the rest stay undecoded).
Result<RssSeries> read_rss(const store::Reader& reader, const std::set<int64_t>& process_ids);

// The process's sample nearest t_ms (the earlier of two as near). Not the last one
// before: a process's exit snapshot comes just before the recorder's read of it as it
// exits, which holds its heap at its end, while the tick before may be from its start.
std::optional<RssPoint> rss_at(const RssSeries& series, int64_t process_id, int64_t t_ms);

}  // namespace canopy::analyze
