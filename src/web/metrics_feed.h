// The latest live figures of a recording (live/live_figures.h), between the
// recorder's loop, which publishes them after each tick, and the threads that serve
// /metrics, which read them. A swap of an immutable snapshot under a mutex held for
// two pointer moves: neither side waits on the other's work.
#pragma once

#include <memory>
#include <mutex>

#include "live/live_figures.h"

namespace canopy::web {

class MetricsFeed final : public live::LiveFiguresSink {
 public:
  void publish(std::shared_ptr<const live::LiveFigures> figures) override {
    std::shared_ptr<const live::LiveFigures> old;
    {
      std::lock_guard lock(mutex_);
      old.swap(latest_);
      latest_ = std::move(figures);
    }
    // `old` is freed here, outside the lock (a reader may still hold it: then by it).
  }
  // nullptr before the first tick.
  std::shared_ptr<const live::LiveFigures> latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const live::LiveFigures> latest_;
};

}  // namespace canopy::web
