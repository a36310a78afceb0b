// What canopy's HTTP servers (the viewer's, /metrics') share: a cpp-httplib server
// with a thread per connection (connection_threads.h) and short idle timeouts, bound
// before it serves, and the check of the Host header against DNS rebinding.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "common/result.h"

namespace httplib {
class Server;
struct Response;
}

namespace canopy::web {

class HttpListener {
 public:
  HttpListener();
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Binds `address` (numeric IPv4 or IPv6), `port` 0 for any free one. The socket is
  // close-on-exec: a command the recorder starts afterwards must not inherit it.
  Status bind(const std::string& address, int port);
  httplib::Server& http() { return *http_; }
  int port() const { return port_; }
  // host:port as a browser sends it in Host ([v6]:port).
  std::string authority() const;
  // Whether a request with this Host header is addressed to us: by the address we
  // listen on, or a loopback name of it. On 0.0.0.0 or :: any Host is.
  bool host_allowed(const std::string& host) const;
  // Answers requests until stop(), from any thread.
  Status serve();
  // Returns once serve() has returned, or at once when it is not running; a serve()
  // called after it returns at once.
  void stop();

 private:
  std::string address_;
  int port_ = 0;
  int listening_fd_ = -1;  // owned by http_
  std::atomic<bool> stop_asked_ = false;
  std::atomic<bool> serving_ = false;
  std::unique_ptr<httplib::Server> http_;
};

}  // namespace canopy::web
