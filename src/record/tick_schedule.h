// When the recorder's next tick is due, on CLOCK_MONOTONIC: one every interval from
// the start. The sampling loop waits for it with epoll's own timeout, so a tick costs
// no read of a timer descriptor. A tick that overran skips the ones it missed rather
// than bunching them up, as a timerfd read's expiration count was used to.
#pragma once

#include <algorithm>
#include <cstdint>

namespace canopy::record {

class TickSchedule {
 public:
  // A command we run starts at the start and has nothing to show before its first
  // interval (at the start, the child has not yet exec'd: it is a copy of canopy). A
  // process we attach to is there already: its tree's figures begin at the start.
  enum class FirstTick { kAfterOneInterval, kAtStart };

  TickSchedule(int64_t start_ns, int64_t interval_ns, FirstTick first = FirstTick::kAfterOneInterval)
      : next_ns_(first == FirstTick::kAtStart ? start_ns : start_ns + interval_ns), interval_ns_(interval_ns) {}

  bool due(int64_t now_ns) const { return now_ns >= next_ns_; }
  // How long to wait for the next tick: 0 when it is due.
  int64_t ns_until_due(int64_t now_ns) const { return std::max<int64_t>(0, next_ns_ - now_ns); }
  // The due tick was taken at `now_ns`: the next is the first time in the schedule
  // after it.
  void take(int64_t now_ns) {
    if (due(now_ns)) {
      next_ns_ += interval_ns_ * ((now_ns - next_ns_) / interval_ns_ + 1);
    }
  }

 private:
  int64_t next_ns_;
  int64_t interval_ns_;
};

}  // namespace canopy::record
