// A recording the viewer serves while it loads. The first chart needs little: the
// meta and the tree's total at each tick, a few thousand rows of the tick table. The
// rest (every sample row, for the per-process bands, the tree and the information
// panel) can take seconds for an hour of a large tree. So `canopy view` serves a
// preview at once and loads the rest on a thread, and the page swaps the preview for
// the full views when it is done (web/API.md, GET /api/recording).
//
// A recording still being written (no end in its meta yet) is then followed: the data
// is brought up to date (view_follow.h) after each of the recorder's commits while a
// page watches it (GET /api/live), else when a request asks for it (catch_up), under a
// lock that the server's requests share. With nobody looking, nothing is read.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "common/result.h"
#include "web/view_data.h"
#include "web/view_follow.h"

namespace canopy::web {

// How many points the preview's total has at most: about one per pixel of a wide chart.
inline constexpr size_t kPreviewPoints = 2000;

class ViewLoading {
 public:
  // Opens the file and reads the preview; an error (one line naming the file and the
  // cause) when either fails. Then loads the rest on a thread, which runs
  // `before_load` first (tests hold the load there to see the preview served).
  // `follow`: when the recording has no end yet, follow it until it has one, or until
  // destroyed.
  static Result<std::unique_ptr<ViewLoading>> start(const std::string& path,
                                                     std::function<void()> before_load = {}, bool follow = true);
  // For `record --serve`, whose server binds before the recorder has made the file:
  // nothing until begin(), which start() is the two together with. A server must not
  // serve it before begin() has returned.
  static std::unique_ptr<ViewLoading> unstarted();
  Status begin(const std::string& path, std::function<void()> before_load = {}, bool follow = true);
  // A recording loaded already (report --html, benchmarks): no preview is ever served.
  static std::unique_ptr<ViewLoading> loaded(ViewData data);
  ~ViewLoading();  // stops following, waits for the loading thread
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

  // What reads data() holds this while it reads: a follower changes the data between
  // two reads, never during one.
  std::shared_lock<std::shared_mutex> read_lock() const { return std::shared_lock(data_mutex_); }
  // Counts the follower's updates (0 before the load). wait_for_update waits until it
  // passes `seen`, at most `timeout`, and returns it.
  uint64_t version() const;
  uint64_t wait_for_update(uint64_t seen, std::chrono::milliseconds timeout) const;
  // The recorder has committed (record --serve, in this process): the follower reads
  // the commit now rather than at its next poll. Never blocks for long.
  void nudge();
  // Before a request reads data(): brings it up to date when nobody watches (while a
  // page does, the loading thread keeps it so).
  void catch_up();
  // A page following the recording (GET /api/live) holds one while its stream is open.
  std::shared_ptr<const void> watch() const;
  // Whether a page holds one now.
  bool watched() const { return watchers_.load(std::memory_order_relaxed) > 0; }
  // Whether the recording is being followed (loaded, not ended, not stopped).
  bool following() const;
  // A follower's failure to read the recording after it loaded (the recorder's file
  // deleted, damaged): the data stays as last read.
  std::optional<Error> follow_failure() const;

 private:
  ViewLoading() = default;
  // The load, in one snapshot when `live`.
  Result<ViewData> load(bool live);
  void finish(Result<ViewData> loaded);
  // The loading thread, after the load: wakes at each nudge or poll, and updates while
  // a page watches, until the end or stop.
  void follow_commits();
  // One update, if the recorder has committed since the last: after it, what watches
  // the updates learns of it, and of the end or of a failure to read.
  void update();
  // The update itself; whether the recording has ended.
  Result<bool> follow_step();

  nlohmann::json preview_;
  std::unique_ptr<store::Reader> reader_;  // the events' texts are read from it after loading
  std::optional<ViewData> data_;
  std::atomic<const ViewData*> published_{nullptr};
  mutable std::atomic<int> watchers_{0};
  mutable std::mutex mutex_;
  mutable std::condition_variable finished_changed_;
  bool finished_ = false;
  std::optional<Error> failure_;
  mutable std::shared_mutex data_mutex_;  // data_ while followed
  uint64_t version_ = 0;                  // under mutex_, like the rest below
  bool following_ = false;
  bool stopping_ = false;
  bool nudged_ = false;
  bool nudges_ = false;  // whether any came (then polls back them up only)
  std::optional<Error> follow_failure_;
  // Under data_mutex_, held exclusively: the loading thread and catch_up take turns.
  int64_t last_data_version_ = 0;
  ViewFollower follower_;
  mutable std::condition_variable updated_;
  std::thread loader_;
};

}  // namespace canopy::web
