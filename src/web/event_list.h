// The events pane's list, for recordings with millions of log lines: the recording's
// events merged in time order with the process starts and ends derived from the process
// table, held in memory without their text (24 bytes a line), and filtered by kind into
// position arrays built on demand and cached. Texts stay in the file and are read per
// page, through a Reader that is not thread-safe: every read holds one mutex.
#pragma once

#include <sys/types.h>

#include <bitset>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "store/reader.h"

namespace canopy::web {

// The kinds a line can have: at most this many distinct ones per recording.
inline constexpr size_t kMaxEventKinds = 256;
using KindSet = std::bitset<kMaxEventKinds>;

// One line of the list, without its text.
struct EventEntry {
  int64_t id = 0;  // the event's rowid; 0 for a line derived from the process table
  int64_t t_ms = 0;
  int32_t process_id = 0;   // 0: none (process ids are dense from 1)
  uint32_t source_id : 24;  // 0: none (log_source ids are dense from 1)
  uint32_t kind : 8;        // index into EventList::kinds()
};
static_assert(sizeof(EventEntry) == 24, "ten million lines must fit in 240 MB");

// The positions (into the list) of the lines of some kinds, in time order. Every kind:
// no array, position i is line i.
class FilteredEvents {
 public:
  static FilteredEvents everything(size_t count) { return FilteredEvents(count, {}); }
  static FilteredEvents of(std::vector<uint32_t> positions) {
    size_t count = positions.size();
    return FilteredEvents(count, std::move(positions));
  }
  size_t size() const { return count_; }
  size_t position(size_t i) const { return positions_.empty() ? i : positions_[i]; }
  size_t memory_bytes() const { return positions_.capacity() * sizeof(uint32_t); }

 private:
  FilteredEvents(size_t count, std::vector<uint32_t> positions) : count_(count), positions_(std::move(positions)) {}
  size_t count_ = 0;
  std::vector<uint32_t> positions_;
};

class EventList {
 public:
  // Reads the recording's events without their text and derives, per process, `start`
  // and either `exit` (a non-zero status or a signal) or `end` (any other known end).
  // `recording_end_ms`: a process last seen before it and without a recorded end ended
  // then; one still alive at the end has no end line. `reader` must outlive the list.
  static Result<std::unique_ptr<EventList>> load(const store::Reader& reader,
                                                 const std::vector<store::ProcessRow>& processes,
                                                 std::optional<int64_t> recording_end_ms);

  EventList(const EventList&) = delete;
  EventList& operator=(const EventList&) = delete;

  size_t size() const { return entries_.size(); }
  const EventEntry& operator[](size_t position) const { return entries_[position]; }
  const std::vector<std::string>& kinds() const { return kinds_; }
  const std::string& kind_name(const EventEntry& e) const { return kinds_[e.kind]; }
  // Lines per kind, indexed like kinds().
  const std::vector<int64_t>& counts() const { return counts_; }

  // The set of these kinds; a name the recording does not have matches nothing.
  KindSet kind_set(std::span<const std::string> names) const;
  KindSet all_kinds() const;

  // The lines of these kinds. Built on first use (one pass over the list) and kept for
  // the next requests, the most recently used first, up to kMaxCached of them and
  // kMaxCachedBytes (the newest always stays).
  std::shared_ptr<const FilteredEvents> filtered(const KindSet& kinds) const;

  // The index (into `filtered`) of its first line at or after t_ms; size() when none.
  size_t index_at(const FilteredEvents& filtered, int64_t t_ms) const;
  // The index of the line nearest to t_ms (the earlier on a tie, and the first of
  // several at one time, so a click on a line and a pin at its time agree); size()
  // when `filtered` is empty.
  size_t nearest_index(const FilteredEvents& filtered, int64_t t_ms) const;

  // The texts of the lines at these positions, in the same order: read from the file
  // for the recording's events, made from the process table for the derived ones.
  Result<std::vector<std::string>> texts(std::span<const size_t> positions) const;

 private:
  static constexpr size_t kMaxCached = 8;
  static constexpr size_t kMaxCachedBytes = 256 << 20;

  // The text of a process's derived lines, as the page showed them before the server
  // derived them: its command line, and how it ended.
  struct ProcessText {
    std::string command;
    std::string ending;
  };

  explicit EventList(const store::Reader& reader) : reader_(reader) {}

  // Room is left for the three derived kinds: only they may take the last three ids.
  std::optional<uint32_t> kind_id(std::string_view name, bool derived = false);
  // start, and exit or end, per process, in time order.
  std::vector<EventEntry> derive(const std::vector<store::ProcessRow>& processes,
                                 std::optional<int64_t> recording_end_ms);
  int64_t time_of(const FilteredEvents& filtered, size_t index) const {
    return entries_[filtered.position(index)].t_ms;
  }

  const store::Reader& reader_;
  mutable std::mutex reader_mutex_;
  std::vector<EventEntry> entries_;
  std::vector<std::string> kinds_;
  uint32_t last_kind_ = 0;
  std::vector<int64_t> counts_;
  std::vector<ProcessText> process_texts_;  // by process id - 1
  mutable std::mutex cache_mutex_;
  mutable std::list<std::pair<KindSet, std::shared_ptr<const FilteredEvents>>> cache_;
};

}  // namespace canopy::web
