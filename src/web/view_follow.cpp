#include "web/view_follow.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>

namespace canopy::web {
namespace {

int64_t steady_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

bool FollowBudget::allows(int64_t now_us) {
  if (last_us_ >= 0) {
    balance_us_ = std::min(balance_us_ + (now_us - last_us_), kSavesMs * 1000);
  }
  last_us_ = now_us;
  return balance_us_ > 0;
}

Status ViewFollower::update(ViewData& data, const store::Reader& reader, bool complete) {
  using ProcessRows = analyze::Timeline::ProcessRows;
  const std::function<Status()> passes[kPassCount] = {
      [&] { return data.timeline.extend(reader, complete, ProcessRows::kAll); },
      [&]() -> Status {
        if (data.timeline.subtrees_stale()) {
          data.timeline.update_subtrees();
        }
        return Ok{};
      },
      [&]() -> Status {
        ASSIGN_OR_RETURN(data.events, load_event_list(reader, data.timeline));
        return Ok{};
      },
      [&]() -> Status {
        ASSIGN_OR_RETURN(data.profiles, load_profile_view(reader, data.timeline.processes()));
        return Ok{};
      },
  };
  bool ran[kPassCount] = {};
  // Pass `p` if the budget allows it (always once the recording is complete).
  auto run = [&](int p) -> Status {
    const int64_t start_us = steady_us();
    if (complete || budget_.allows(start_us)) {
      RETURN_IF_ERROR(passes[p]());
      budget_.spend(steady_us() - start_us);
      ran[p] = true;
    }
    return Ok{};
  };
  // Every process row when it is their turn, else those that can have changed
  // (timeline.h): a long build's thousands of ended ones are read again only then.
  if (turn_ == kProcessRows || complete) {
    RETURN_IF_ERROR(run(kProcessRows));
  }
  if (!ran[kProcessRows]) {
    RETURN_IF_ERROR(data.timeline.extend(reader, complete, ProcessRows::kChanging));
  }
  // The others, from whose turn it is, while the budget lasts; the process rows' turn
  // comes round at the next update, since the others read the timeline.
  int next = ran[kProcessRows] ? kSubtrees : turn_;
  while (next != kProcessRows) {
    RETURN_IF_ERROR(run(next));
    if (!ran[next]) {
      break;
    }
    next = (next + 1) % kPassCount;
  }
  turn_ = next;

  data.live = !complete;
  RETURN_IF_ERROR(update_recording_json(data, reader));
  nlohmann::json stale = nlohmann::json::array();
  if (!ran[kProcessRows]) {
    stale.push_back("processes");
  }
  if (data.timeline.subtrees_stale()) {
    stale.push_back("subtrees");
  }
  if (!ran[kEvents]) {
    stale.push_back("events");
  }
  if (!ran[kProfiles]) {
    stale.push_back("profiles");
  }
  data.recording["stale"] = std::move(stale);
  return Ok{};
}

}  // namespace canopy::web
