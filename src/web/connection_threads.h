// The threads that serve the viewer's connections, one each.
//
// cpp-httplib hands every accepted connection to a TaskQueue, by default a fixed pool
// of max(8, CPUs - 1) threads. A connection keeps its thread until it closes, or until
// it has been silent for the keep-alive timeout, so a handful of connections that send
// nothing (a browser's speculative ones, or anyone's) made a real request wait whole
// timeouts: 20 of them delayed one by 19.5 s. Here a connection that finds no thread
// free gets a new one, up to kMaxConnectionThreads; the server's short idle timeouts
// (server.cpp) make a silent connection give its thread back soon.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace canopy::web {

// Enough for every connection a few browser tabs open and many idle ones beside;
// beyond it, connections wait for a thread, at most the idle timeout. A cap at all,
// since each thread reserves a stack.
inline constexpr size_t kMaxConnectionThreads = 128;

class ConnectionThreads final : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(size_t max_threads = kMaxConnectionThreads) : max_threads_(max_threads) {}
  ConnectionThreads(const ConnectionThreads&) = delete;
  ConnectionThreads& operator=(const ConnectionThreads&) = delete;
  ~ConnectionThreads() override { shutdown(); }

  // Runs `task` (one connection, to its end) on a free thread, a new one if none is.
  void enqueue(std::function<void()> task) override;
  // Lets the queued tasks finish, then joins every thread.
  void shutdown() override;

 private:
  void work();

  const size_t max_threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
  size_t waiting_ = 0;  // threads waiting for a task
  bool stopping_ = false;
};

}  // namespace canopy::web
