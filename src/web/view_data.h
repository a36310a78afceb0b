// What the viewer shows of one recording, loaded once: the JSON documents of the API
// (web/API.md) that do not depend on the request, the timeline that answers the ones
// that do, and the event list that pages through the events. Immutable after load but
// for the event list's cache and its reads of the file, which it guards itself; so the
// server's threads share it freely.
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "analyze/timeline.h"
#include "common/result.h"
#include "store/reader.h"
#include "web/event_list.h"
#include "web/profile_view.h"

namespace canopy::web {

// Lines per page of GET /api/events, and the most of one line's text a page carries.
inline constexpr size_t kDefaultEventsPerPage = 200;
inline constexpr size_t kMaxEventsPerPage = 1000;
inline constexpr size_t kMaxEventTextBytes = 64 << 10;

struct ViewData {
  std::string file;  // the recording's file name, for titles
  nlohmann::json recording;  // GET /api/recording
  analyze::Timeline timeline;
  std::unique_ptr<store::Reader> reader;  // when loaded from a path: the events' texts are read from it
  std::unique_ptr<EventList> events;
  std::unique_ptr<ProfileView> profiles;  // the CPU and heap profiles, named once
  // Following a recording still being written (view_follow.h): the recorder has not
  // finished it yet. GET /api/recording's "live".
  bool live = false;
  // What each of recording["processes"] was made from: a follower remakes only those
  // whose process, subtree or words changed (most of a build's have ended, and stay as
  // they are; a new process may make an older one's words read alike).
  struct ProcessMadeFrom {
    store::ProcessRow row = {};
    analyze::Subtree subtree = {};
    std::string short_words = "";  // "" for none
  };
  std::vector<ProcessMadeFrom> processes_made_from;
  // Counts the makings of `recording` (GET /api/recording's "update"), and the one at
  // which each of its processes last changed: a page following the recording asks only
  // for those changed since the update it has (recording_since_json).
  uint64_t update = 0;
  std::vector<uint64_t> process_changed_at;
};

// One line naming the file and the cause on failure (as store::Reader::open).
Result<ViewData> load_view_data(const std::string& path);
// From a recording already open (report --html has opened it for the summary); the
// event list reads texts through `reader`, which must outlive the ViewData. `live`: the
// recording is still being written, and will be followed (view_follow.h).
Result<ViewData> load_view_data(const store::Reader& reader, bool live = false);

// The parts of a ViewData, which a follower (view_follow.h) brings up to date one by one.
Result<std::unique_ptr<EventList>> load_event_list(const store::Reader& reader, const analyze::Timeline& timeline);
// GET /api/recording from the timeline, the events and the profiles.
Status update_recording_json(ViewData& data, const store::Reader& reader);

// GET /api/recording?since=UPDATE: the recording as data.recording, but with only the
// processes that changed after that update ("processes_since" says so, and
// "process_count" how many there are in all). An update the data has not reached (from
// an earlier server) gets every process, without "processes_since".
nlohmann::json recording_since_json(const ViewData& data, uint64_t since);

// GET /api/recording while the rest loads (view_loading.h): the meta and the tree's
// resident total from the tick table, downsampled to about `points` real ticks.
Result<nlohmann::json> preview_json(const store::Reader& reader, const std::string& file, size_t points);

// GET /api/series and /api/at.
nlohmann::json series_json(const analyze::Series& series);
nlohmann::json moment_json(const analyze::Moment& moment);

// One line of GET /api/events: its text cut to `max_text_bytes` at a character
// boundary, with "text_bytes" (the whole size) when cut.
nlohmann::json event_json(const EventList& list, size_t position, std::string text, size_t max_text_bytes);
// GET /api/events?kinds=&offset=&limit= (limit already within 1..kMaxEventsPerPage).
Result<nlohmann::json> events_page_json(const EventList& list, const KindSet& kinds, size_t offset, size_t limit);
// GET /api/events?kinds=&at=: the line nearest to the time (see EventList::nearest_index).
nlohmann::json events_at_json(const EventList& list, const KindSet& kinds, int64_t t_ms);

}  // namespace canopy::web
