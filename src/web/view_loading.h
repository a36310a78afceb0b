// A recording the viewer serves while it loads. The first chart needs little: the
// meta and the tree's total at each tick, a few thousand rows of the tick table. The
// rest (every sample row, for the per-process bands, the tree and the information
// panel) can take seconds for an hour of a large tree. So `canopy view` serves a
// preview at once and loads the rest on a thread, and the page swaps the preview for
// the full views when it is done (web/API.md, GET /api/recording).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "common/result.h"
#include "web/view_data.h"

namespace canopy::web {

// How many points the preview's total has at most: about one per pixel of a wide chart.
inline constexpr size_t kPreviewPoints = 2000;

class ViewLoading {
 public:
  // Opens the file and reads the preview; an error (one line naming the file and the
  // cause) when either fails. Then loads the rest on a thread, which runs
  // `before_load` first (tests hold the load there to see the preview served).
  static Result<std::unique_ptr<ViewLoading>> start(const std::string& path,
                                                     std::function<void()> before_load = {});
  // A recording loaded already (report --html, benchmarks): no preview is ever served.
  static std::unique_ptr<ViewLoading> loaded(ViewData data);
  ~ViewLoading();  // waits for the loading thread
  ViewLoading(const ViewLoading&) = delete;
  ViewLoading& operator=(const ViewLoading&) = delete;

  // GET /api/recording?preview=1 while loading: {"loading": true, file, process_count,
  // meta, metrics, peak, and "total": {metric, t, values}, the tree's resident total
  // from the tick table}.
  const nlohmann::json& preview() const { return preview_; }
  // The loaded recording; nullptr while loading or after a failure.
  const ViewData* data() const { return published_.load(std::memory_order_acquire); }
  // Whether loading has ended (loaded or failed).
  bool finished() const;
  // Waits until loading ends; the error when it failed.
  Status wait_finished() const;

 private:
  ViewLoading() = default;
  void finish(Result<ViewData> loaded);

  nlohmann::json preview_;
  std::unique_ptr<store::Reader> reader_;  // the events' texts are read from it after loading
  std::optional<ViewData> data_;
  std::atomic<const ViewData*> published_{nullptr};
  mutable std::mutex mutex_;
  mutable std::condition_variable finished_changed_;
  bool finished_ = false;
  std::optional<Error> failure_;
  std::thread loader_;
};

}  // namespace canopy::web
