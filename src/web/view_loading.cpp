#include "web/view_loading.h"


#include <filesystem>

#include "analyze/recorder_alive.h"
#include "common/signal_free_thread.h"
#include "store/reader.h"
#include "web/view_follow.h"

namespace canopy::web {

Result<std::unique_ptr<ViewLoading>> ViewLoading::start(const std::string& path, std::function<void()> before_load,
                                                        bool follow) {
  auto loading = unstarted();
  RETURN_IF_ERROR(loading->begin(path, std::move(before_load), follow));
  return loading;
}

std::unique_ptr<ViewLoading> ViewLoading::unstarted() { return std::unique_ptr<ViewLoading>(new ViewLoading()); }

Status ViewLoading::begin(const std::string& path, std::function<void()> before_load, bool follow) {
  // Loading reads every table in full but the events' texts, which finds most damage
  // integrity_check would; a damaged text surfaces as an error of the page that reads it.
  ASSIGN_OR_RETURN(auto reader, store::Reader::open(path, store::Reader::Verify::kWhileReading));
  reader_ = std::make_unique<store::Reader>(std::move(reader));
  const std::string file = std::filesystem::path(path).filename().string();
  ASSIGN_OR_RETURN(preview_, preview_json(*reader_, file, kPreviewPoints));
  // Followed when it has no end yet and its recorder still runs (a killed one's file
  // never changes again: it is shown as interrupted).
  const bool live = follow && !reader_->meta().end_ms && analyze::recorder_running(reader_->meta());
  // The loading thread takes no signals: the caller's own handling of SIGINT and SIGTERM
  // (view_command.cpp waits for them) must not find them delivered here instead.
  loader_ = signal_free_thread([this, live, before_load = std::move(before_load)] {
    if (before_load) {
      before_load();
    }
    finish(load(live));
    if (live) {
      follow_commits();
    }
  });
  return Ok{};
}

std::unique_ptr<ViewLoading> ViewLoading::loaded(ViewData data) {
  std::unique_ptr<ViewLoading> loading(new ViewLoading());
  loading->finish(std::move(data));
  return loading;
}

ViewLoading::~ViewLoading() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  updated_.notify_all();
  if (loader_.joinable()) {
    loader_.join();
  }
}

Result<ViewData> ViewLoading::load(bool live) {
  if (!live) {
    return load_view_data(*reader_);
  }
  // One snapshot, so that the follower's first update starts where the load ended.
  RETURN_IF_ERROR(reader_->begin_snapshot());
  Result<ViewData> loaded = Error{""};
  if (auto version = reader_->data_version(); !version) {
    loaded = version.error();
  } else {
    last_data_version_ = *version;
    loaded = load_view_data(*reader_, /*live=*/true);
  }
  reader_->end_snapshot();
  return loaded;
}

void ViewLoading::finish(Result<ViewData> loaded) {
  std::lock_guard lock(mutex_);
  if (loaded) {
    following_ = loaded->live;
    data_ = std::move(*loaded);
    published_.store(&*data_, std::memory_order_release);
    version_ = 1;
  } else {
    failure_ = loaded.error();
  }
  finished_ = true;
  finished_changed_.notify_all();
  updated_.notify_all();
}

void ViewLoading::follow_commits() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (!following_) {
        return;
      }
      const int64_t poll_ms = nudges_ ? kNudgedFollowPollMs : kFollowPollMs;
      updated_.wait_for(lock, std::chrono::milliseconds(poll_ms), [this] { return stopping_ || nudged_; });
      if (stopping_) {
        following_ = false;
        return;
      }
      nudged_ = false;
    }
    if (watched()) {
      update();
    }
  }
}

void ViewLoading::catch_up() {
  if (!watched() && following()) {
    update();
  }
}

void ViewLoading::update() {
  Result<bool> ended = follow_step();
  if (ended && !*ended) {
    return;
  }
  std::lock_guard lock(mutex_);
  if (!ended) {
    follow_failure_ = ended.error();
    ++version_;  // what watches the updates learns it
  }
  following_ = false;
  updated_.notify_all();
}

Result<bool> ViewLoading::follow_step() {
  // The requests read the events' texts through the same connection, one thread at a
  // time (it is opened without SQLite's own mutex): every use of it here holds the
  // data lock, which they share.
  std::unique_lock write(data_mutex_);
  if (!following()) {
    return true;  // another caller has read the end, or failed
  }
  ASSIGN_OR_RETURN(int64_t data_version, reader_->data_version());
  // A recorder killed before it finished: what it committed is all there will be.
  const bool recorder_gone = !analyze::recorder_running(reader_->meta());
  if (data_version == last_data_version_ && !recorder_gone) {
    return false;
  }
  last_data_version_ = data_version;
  RETURN_IF_ERROR(reader_->begin_snapshot());
  // Its end in the meta, or no recorder left to write one.
  const bool complete = reader_->meta().end_ms.has_value() || recorder_gone;
  Status updated = follower_.update(*data_, *reader_, complete);
  reader_->end_snapshot();
  write.unlock();
  RETURN_IF_ERROR(updated);
  {
    // One change: what sees the new version sees whether it was the last.
    std::lock_guard lock(mutex_);
    ++version_;
    following_ = !complete;
  }
  updated_.notify_all();
  return complete;
}

void ViewLoading::nudge() {
  {
    std::lock_guard lock(mutex_);
    nudged_ = true;
    nudges_ = true;
  }
  updated_.notify_all();
}

std::shared_ptr<const void> ViewLoading::watch() const {
  watchers_.fetch_add(1, std::memory_order_relaxed);
  return std::shared_ptr<const void>(this, [](const void* self) {
    static_cast<const ViewLoading*>(self)->watchers_.fetch_sub(1, std::memory_order_relaxed);
  });
}

uint64_t ViewLoading::version() const {
  std::lock_guard lock(mutex_);
  return version_;
}

uint64_t ViewLoading::wait_for_update(uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  updated_.wait_for(lock, timeout, [&] { return version_ != seen || stopping_; });
  return version_;
}

bool ViewLoading::following() const {
  std::lock_guard lock(mutex_);
  return following_;
}

std::optional<Error> ViewLoading::follow_failure() const {
  std::lock_guard lock(mutex_);
  return follow_failure_;
}

bool ViewLoading::finished() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

Status ViewLoading::wait_finished() const {
  std::unique_lock lock(mutex_);
  finished_changed_.wait(lock, [this] { return finished_; });
  if (failure_) {
    return *failure_;
  }
  return Ok{};
}

}  // namespace canopy::web
