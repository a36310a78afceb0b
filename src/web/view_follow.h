// Following a recording still being written: `canopy view` of a file a running
// recorder writes, and `record --serve`. The recorder commits about once a second;
// after each commit the follower reads what it added (Timeline::extend) and brings
// the rest of the viewer's data up to date.
//
// What costs a pass over the whole recording (every process row, the subtrees' peaks,
// the event list, the profiles) is redone only as often as it takes at most
// 1/kFollowShare of the time, measured: each second for a build of minutes, less often
// for hours of a large tree, and always once more when the recording ends. GET
// /api/recording says which lag ("stale").
#pragma once

#include <cstdint>

#include "common/result.h"
#include "store/reader.h"
#include "web/view_data.h"

namespace canopy::web {

// How often a follower asks whether the recorder has committed (a cheap PRAGMA).
inline constexpr int64_t kFollowPollMs = 200;
// The same, once the recorder has said when it commits (record --serve, whose recorder
// runs in the same process: ViewLoading::nudge): a poll then only backs the nudges up.
inline constexpr int64_t kNudgedFollowPollMs = 1000;
// A pass over the whole recording waits this many times its own last duration.
inline constexpr int64_t kFollowShare = 20;

// Whether the canopy that writes `meta`'s recording is still running: the recording's
// `recorder_pid` on this host is a live process named canopy. False for a recording
// from elsewhere, from a canopy too old to say, or whose recorder was killed: its file
// never grows again, and a viewer shows it as interrupted rather than follow it.
bool recorder_running(const store::RecordingMeta& meta);

class ViewFollower {
 public:
  // Brings `data` (from load_view_data of `reader`'s file) up to date, within
  // `reader`'s snapshot (Reader::begin_snapshot). `complete`: the recorder has
  // finished, so everything is read and redone.
  Status update(ViewData& data, const store::Reader& reader, bool complete);

 private:
  // When a costly pass is due again.
  class Pacing {
   public:
    bool due(int64_t now_ms) const { return now_ms >= next_ms_; }
    void took(int64_t start_ms, int64_t end_ms) { next_ms_ = end_ms + kFollowShare * (end_ms - start_ms); }

   private:
    int64_t next_ms_ = 0;
  };
  Pacing process_rows_;
  Pacing subtrees_;
  Pacing events_;
  Pacing profiles_;
};

}  // namespace canopy::web
