#include "web/event_list.h"

#include <signal.h>

#include <algorithm>
#include <cstring>

namespace canopy::web {
namespace {

EventEntry entry(int64_t id, int64_t t_ms, int64_t process_id, int64_t source_id, uint32_t kind) {
  EventEntry e;
  e.id = id;
  e.t_ms = t_ms;
  e.process_id = process_id > 0 && process_id <= INT32_MAX ? static_cast<int32_t>(process_id) : 0;
  e.source_id = source_id > 0 && source_id < (1 << 24) ? static_cast<uint32_t>(source_id) : 0;
  e.kind = kind;
  return e;
}

bool failed(const store::ProcessRow& p) {
  return p.exit_signal.has_value() || (p.exit_code.has_value() && *p.exit_code != 0);
}

std::string ending_text(const store::ProcessRow& p) {
  if (p.exit_signal) {
    const char* abbrev = ::sigabbrev_np(static_cast<int>(*p.exit_signal));
    return "killed by " + (abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(*p.exit_signal));
  }
  if (p.exit_code) {
    return "exit " + std::to_string(*p.exit_code);
  }
  return "ended (status unknown)";
}

std::string command_text(const store::ProcessRow& p) {
  if (p.cmdline.empty()) {
    return p.name;
  }
  std::string text;
  for (const std::string& word : p.cmdline) {
    text += (text.empty() ? "" : " ") + word;
  }
  return text;
}

}  // namespace

Result<std::unique_ptr<EventList>> EventList::load(const store::Reader& reader,
                                                   const std::vector<store::ProcessRow>& processes,
                                                   std::optional<int64_t> recording_end_ms) {
  std::unique_ptr<EventList> list(new EventList(reader));
  std::vector<EventEntry> recorded;
  std::string too_many;
  auto status = reader.for_each_event(
      [&](const store::EventRow& row) {
        auto kind = list->kind_id(row.kind);
        if (!kind) {
          too_many = row.kind;
          return;
        }
        recorded.push_back(entry(row.id, row.t_ms, row.process_id.value_or(0), row.source_id.value_or(0), *kind));
      },
      false);
  if (!status) {
    return status.error();
  }
  if (!too_many.empty()) {
    return Error{"cannot list the events of " + reader.path() + ": more than " + std::to_string(kMaxEventKinds - 3) +
                 " event kinds"};
  }
  std::vector<EventEntry> derived = list->derive(processes, recording_end_ms);
  list->entries_.resize(recorded.size() + derived.size());
  // On equal times the recording's own events come first, then the derived ones.
  std::merge(recorded.begin(), recorded.end(), derived.begin(), derived.end(), list->entries_.begin(),
             [](const EventEntry& a, const EventEntry& b) { return a.t_ms < b.t_ms; });
  if (list->entries_.size() > UINT32_MAX) {
    return Error{"cannot list the events of " + reader.path() + ": more than 4 billion"};
  }
  list->counts_.assign(list->kinds_.size(), 0);
  for (const EventEntry& e : list->entries_) {
    ++list->counts_[e.kind];
  }
  return list;
}

KindSet EventList::kind_set(std::span<const std::string> names) const {
  KindSet set;
  for (const std::string& name : names) {
    auto it = std::find(kinds_.begin(), kinds_.end(), name);
    if (it != kinds_.end()) {
      set.set(static_cast<size_t>(it - kinds_.begin()));
    }
  }
  return set;
}

KindSet EventList::all_kinds() const {
  KindSet set;
  for (size_t k = 0; k < kinds_.size(); ++k) {
    set.set(k);
  }
  return set;
}

std::shared_ptr<const FilteredEvents> EventList::filtered(const KindSet& kinds) const {
  std::lock_guard lock(cache_mutex_);
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->first == kinds) {
      cache_.splice(cache_.begin(), cache_, it);
      return cache_.front().second;
    }
  }
  std::shared_ptr<const FilteredEvents> made;
  if ((kinds & all_kinds()) == all_kinds()) {
    made = std::make_shared<const FilteredEvents>(FilteredEvents::everything(entries_.size()));
  } else {
    std::vector<uint32_t> positions;
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (kinds.test(entries_[i].kind)) {
        positions.push_back(static_cast<uint32_t>(i));
      }
    }
    positions.shrink_to_fit();
    made = std::make_shared<const FilteredEvents>(FilteredEvents::of(std::move(positions)));
  }
  cache_.emplace_front(kinds, made);
  size_t bytes = 0;
  auto keep = cache_.begin();
  for (size_t n = 0; keep != cache_.end(); ++keep, ++n) {
    bytes += keep->second->memory_bytes();
    if (n > 0 && (n >= kMaxCached || bytes > kMaxCachedBytes)) {
      break;
    }
  }
  cache_.erase(keep, cache_.end());
  return made;
}

size_t EventList::index_at(const FilteredEvents& filtered, int64_t t_ms) const {
  size_t low = 0;
  size_t high = filtered.size();
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    if (time_of(filtered, middle) < t_ms) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

size_t EventList::nearest_index(const FilteredEvents& filtered, int64_t t_ms) const {
  if (filtered.size() == 0) {
    return 0;
  }
  size_t after = index_at(filtered, t_ms);
  size_t pick = after;
  if (after == filtered.size() ||
      (after > 0 && t_ms - time_of(filtered, after - 1) <= time_of(filtered, after) - t_ms)) {
    pick = after - 1;
  }
  return index_at(filtered, time_of(filtered, pick));
}

Result<std::vector<std::string>> EventList::texts(std::span<const size_t> positions) const {
  std::vector<std::string> out(positions.size());
  std::vector<int64_t> ids;
  for (size_t i = 0; i < positions.size(); ++i) {
    const EventEntry& e = entries_[positions[i]];
    if (e.id != 0) {
      ids.push_back(e.id);
    } else {
      const ProcessText& process = process_texts_[static_cast<size_t>(e.process_id) - 1];
      out[i] = kinds_[e.kind] == "start" ? process.command : process.ending;
    }
  }
  if (ids.empty()) {
    return out;
  }
  Result<std::vector<store::EventRow>> rows = Error{};
  {
    std::lock_guard lock(reader_mutex_);
    rows = reader_.events_by_id(ids);
  }
  if (!rows) {
    return rows.error();
  }
  // Rows come in the order asked; an id the file no longer has is skipped.
  size_t next = 0;
  for (size_t i = 0; i < positions.size() && next < rows->size(); ++i) {
    const EventEntry& e = entries_[positions[i]];
    if (e.id != 0 && (*rows)[next].id == e.id) {
      out[i] = std::move((*rows)[next++].text);
    }
  }
  return out;
}

std::optional<uint32_t> EventList::kind_id(std::string_view name, bool derived) {
  // Kinds come in runs (a log import is one long run): try the last one first.
  if (last_kind_ < kinds_.size() && kinds_[last_kind_] == name) {
    return last_kind_;
  }
  auto it = std::find(kinds_.begin(), kinds_.end(), name);
  if (it == kinds_.end()) {
    if (kinds_.size() >= kMaxEventKinds - (derived ? 0 : 3)) {
      return std::nullopt;
    }
    it = kinds_.insert(kinds_.end(), std::string(name));
  }
  last_kind_ = static_cast<uint32_t>(it - kinds_.begin());
  return last_kind_;
}

std::vector<EventEntry> EventList::derive(const std::vector<store::ProcessRow>& processes,
                                          std::optional<int64_t> recording_end_ms) {
  std::vector<EventEntry> out;
  for (const store::ProcessRow& p : processes) {
    if (p.id != static_cast<int64_t>(process_texts_.size()) + 1) {
      continue;  // ids are dense from 1; a gap would misplace the texts
    }
    process_texts_.push_back({command_text(p), ending_text(p)});
    out.push_back(entry(0, p.start_ms, p.id, 0, *kind_id("start", true)));
    std::optional<int64_t> end_ms = p.end_ms;
    if (!end_ms && p.last_seen_ms && (!recording_end_ms || *p.last_seen_ms < *recording_end_ms)) {
      end_ms = p.last_seen_ms;
    }
    if (!end_ms && !failed(p)) {
      continue;  // still running when the recording ended
    }
    int64_t t_ms = end_ms.value_or(p.last_seen_ms.value_or(p.first_seen_ms));
    out.push_back(entry(0, t_ms, p.id, 0, *kind_id(failed(p) ? "exit" : "end", true)));
  }
  std::stable_sort(out.begin(), out.end(), [](const EventEntry& a, const EventEntry& b) { return a.t_ms < b.t_ms; });
  return out;
}

}  // namespace canopy::web
