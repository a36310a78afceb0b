#include "web/http_listener.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <httplib.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "web/connection_threads.h"

namespace canopy::web {
namespace {

// How long a connection may stay silent, between requests or within one, before the
// server closes it and frees its thread (httplib's default is 5 s for both). Seconds
// are plenty on loopback, and a browser reconnects without a sound.
constexpr time_t kIdleTimeoutS = 2;

}  // namespace

HttpListener::HttpListener() : http_(std::make_unique<httplib::Server>()) {
  http_->new_task_queue = [] { return new ConnectionThreads(); };
  http_->set_keep_alive_timeout(kIdleTimeoutS);
  // One request per connection. Between two requests Debian's cpp-httplib waits for the
  // next by polling the socket every 10 ms: a page following a live recording, or
  // Prometheus scraping each second, kept a connection or more polling all the time,
  // and those wake-ups were most of what watching cost the recorder (make bench-live).
  // A new connection on loopback costs less than a second of that polling.
  http_->set_keep_alive_max_count(1);
  http_->set_read_timeout(kIdleTimeoutS, 0);
  http_->set_socket_options([this](socket_t fd) {
    httplib::default_socket_options(fd);
    // Debian's cpp-httplib makes its sockets without SOCK_CLOEXEC: the command that
    // `record --metrics` starts after binding would hold the port open after us.
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    listening_fd_ = fd;  // the last one made is the one bound
  });
}

HttpListener::~HttpListener() = default;

Status HttpListener::bind(const std::string& address, int port) {
  address_ = address;
  if (address.find(':') != std::string::npos) {
    http_->set_address_family(AF_INET6);
  }
  bool bound = false;
  if (port == 0) {
    port_ = http_->bind_to_any_port(address);
    bound = port_ > 0;
  } else {
    port_ = port;
    bound = http_->bind_to_port(address, port);
  }
  if (!bound) {
    return Error{"cannot listen on " + address + " port " + std::to_string(port) + ": " + std::strerror(errno)};
  }
  // Debian's cpp-httplib listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, built
  // into the library): the kernel drops the SYN of a connection that arrives while 6
  // wait to be accepted, and the client tries again a second later. A browser opening
  // its connections at once, or a few idle ones, would make a request wait that second.
  // Should this fail, the backlog stays as it was: slower, not wrong.
  ::listen(listening_fd_, SOMAXCONN);
  return Ok{};
}

std::string HttpListener::authority() const {
  bool v6 = address_.find(':') != std::string::npos;
  return (v6 ? "[" + address_ + "]" : address_) + ":" + std::to_string(port_);
}

bool HttpListener::host_allowed(const std::string& host) const {
  std::string port = ":" + std::to_string(port_);
  // A page on another site may make the browser send requests here, and DNS rebinding
  // may even make them look same-origin; only the Host header tells the second apart.
  bool any_address = address_ == "0.0.0.0" || address_ == "::";
  return any_address || host == "127.0.0.1" + port || host == "localhost" + port || host == "[::1]" + port ||
         host == authority();
}

Status HttpListener::serve() {
  // serving_ before stop_asked_, as stop() sets them the other way round: whichever
  // comes second sees the other's (both sequentially consistent).
  serving_ = true;
  bool served = stop_asked_ || http_->listen_after_bind();
  serving_ = false;
  if (!served) {
    return Error{"the server stopped: " + std::string(std::strerror(errno))};
  }
  return Ok{};
}

void HttpListener::stop() {
  stop_asked_ = true;
  // httplib ignores stop() until its accept loop runs, so a stop asked just as serve()
  // starts would be lost: ask again until serve() has returned.
  while (serving_) {
    http_->stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace canopy::web
