#include "web/connection_threads.h"

namespace canopy::web {

void ConnectionThreads::enqueue(std::function<void()> task) {
  std::lock_guard lock(mutex_);
  tasks_.push_back(std::move(task));
  // A waiting thread for each waiting task, else one more thread: a burst of
  // connections starts as many as it needs.
  if (waiting_ >= tasks_.size()) {
    wake_.notify_one();
  } else if (threads_.size() < max_threads_) {
    threads_.emplace_back([this] { work(); });
  }
}

void ConnectionThreads::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      return;
    }
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) {
    thread.join();
  }
}

void ConnectionThreads::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    ++waiting_;
    wake_.wait(lock, [this] { return !tasks_.empty() || stopping_; });
    --waiting_;
    if (tasks_.empty()) {
      return;  // stopping, and nothing left to serve
    }
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace canopy::web
