// Following a recording still being written: `canopy view` of a file a running
// recorder writes, and `record --serve`. The recorder commits about once a second;
// after each commit the follower reads what it added (Timeline::extend) and brings
// the rest of the viewer's data up to date.
//
// What costs a pass over the whole recording (every process row, the subtrees' peaks,
// the event list, the profiles) shares one budget: together they take at most
// a twentieth of the time, measured, taking turns when it is short. Each second
// for a build of minutes, less often for hours of a large tree, and always once more
// when the recording ends. GET /api/recording says which lag ("stale").
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
// What the passes over the whole recording may still take: together at most 1/kShare
// of the time, saved up over at most kSavesMs (so that a second's passes can all run
// at one update). A pass may start while any is left and spends what it took, even
// more than was left: the passes after it then wait until time has paid it back.
class FollowBudget {
 public:
  static constexpr int64_t kShare = 20;
  static constexpr int64_t kSavesMs = 1000;

  // Times on one steady clock, in microseconds.
  bool allows(int64_t now_us);
  void spend(int64_t pass_us) { balance_us_ -= pass_us * kShare; }

 private:
  // In microseconds of time passed: each one adds one, and each microsecond of a pass
  // costs kShare. Full at first: the first update runs every pass.
  int64_t balance_us_ = kSavesMs * 1000;
  int64_t last_us_ = -1;
};

class ViewFollower {
 public:
  // Brings `data` (from load_view_data of `reader`'s file) up to date, within
  // `reader`'s snapshot (Reader::begin_snapshot). `complete`: the recorder has
  // finished, so everything is read and redone.
  Status update(ViewData& data, const store::Reader& reader, bool complete);

 private:
  // The passes over the whole recording, in the order they run in one update: every
  // process row first, since the others read the timeline.
  enum Pass : int { kProcessRows, kSubtrees, kEvents, kProfiles, kPassCount };
  FollowBudget budget_;
  // Whose turn it is when the budget cannot pay for every pass at one update: they run
  // in this order, and the process rows only first in an update.
  int turn_ = kProcessRows;
};

}  // namespace canopy::web
