#include "web/view_loading.h"

#include <pthread.h>
#include <signal.h>

#include <filesystem>

#include "store/reader.h"

namespace canopy::web {

Result<std::unique_ptr<ViewLoading>> ViewLoading::start(const std::string& path, std::function<void()> before_load) {
  // Loading reads every table in full but the events' texts, which finds most damage
  // integrity_check would; a damaged text surfaces as an error of the page that reads it.
  ASSIGN_OR_RETURN(auto reader, store::Reader::open(path, store::Reader::Verify::kWhileReading));
  std::unique_ptr<ViewLoading> loading(new ViewLoading());
  loading->reader_ = std::make_unique<store::Reader>(std::move(reader));
  const std::string file = std::filesystem::path(path).filename().string();
  ASSIGN_OR_RETURN(loading->preview_, preview_json(*loading->reader_, file, kPreviewPoints));
  ViewLoading* self = loading.get();
  // The loading thread takes no signals: the caller's own handling of SIGINT and SIGTERM
  // (view_command.cpp waits for them) must not find them delivered here instead.
  sigset_t all, caller;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &caller);
  loading->loader_ = std::thread([self, before_load = std::move(before_load)] {
    if (before_load) {
      before_load();
    }
    self->finish(load_view_data(*self->reader_));
  });
  pthread_sigmask(SIG_SETMASK, &caller, nullptr);
  return loading;
}

std::unique_ptr<ViewLoading> ViewLoading::loaded(ViewData data) {
  std::unique_ptr<ViewLoading> loading(new ViewLoading());
  loading->finish(std::move(data));
  return loading;
}

ViewLoading::~ViewLoading() {
  if (loader_.joinable()) {
    loader_.join();
  }
}

void ViewLoading::finish(Result<ViewData> loaded) {
  std::lock_guard lock(mutex_);
  if (loaded) {
    data_ = std::move(*loaded);
    published_.store(&*data_, std::memory_order_release);
  } else {
    failure_ = loaded.error();
  }
  finished_ = true;
  finished_changed_.notify_all();
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
