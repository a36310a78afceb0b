// The update events of GET /api/live (web/API.md), read on a thread as a page's
// EventSource would, until the last ("following": false) ends the stream.
#pragma once

#include <httplib.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace canopy::testing {

class LiveStream {
 public:
  explicit LiveStream(int port) : thread_([this, port] { read(port); }) {}
  ~LiveStream() { join(); }
  LiveStream(const LiveStream&) = delete;
  LiveStream& operator=(const LiveStream&) = delete;

  // Waits until the stream has ended.
  void join() {
    if (thread_.joinable()) {
      thread_.join();
    }
  }
  // The events' data so far.
  std::vector<nlohmann::json> updates() const {
    std::lock_guard lock(mutex_);
    return updates_;
  }

 private:
  void read(int port) {
    httplib::Client events("127.0.0.1", port);
    events.set_read_timeout(120, 0);
    std::string pending;
    events.Get("/api/live", [&](const char* data, size_t size) {
      pending.append(data, size);
      for (size_t end; (end = pending.find("\n\n")) != std::string::npos; pending.erase(0, end + 2)) {
        std::string event = pending.substr(0, end);
        size_t at = event.find("data: ");
        if (at != std::string::npos) {
          std::lock_guard lock(mutex_);
          updates_.push_back(nlohmann::json::parse(event.substr(at + 6)));
        }
      }
      return true;
    });
  }

  mutable std::mutex mutex_;
  std::vector<nlohmann::json> updates_;
  std::thread thread_;  // last: it starts reading once the rest is made
};

}  // namespace canopy::testing
