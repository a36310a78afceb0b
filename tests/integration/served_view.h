// The viewer's server in the test's own process, as `canopy view` runs it: bound at
// once (loopback, a port of the kernel's choosing), serving on a thread of its own,
// stopped and joined when the ServedView goes. The tests that need the server linked in
// (to hold its loading, or to give it a control) start it through this.
#pragma once

#include <httplib.h>

#include <memory>
#include <string>
#include <thread>

#include "common/result.h"
#include "web/server.h"
#include "web/view_loading.h"

namespace canopy::testing {

class ServedView {
 public:
  // Serves a loading the test started (ViewLoading::start, with a gate or not).
  static Result<std::unique_ptr<ServedView>> start(std::unique_ptr<web::ViewLoading> loading,
                                                   const web::ServerOptions& options = {});
  // Loads `recording`, then serves it.
  static Result<std::unique_ptr<ServedView>> start(const std::string& recording,
                                                   const web::ServerOptions& options = {});
  ~ServedView();
  ServedView(const ServedView&) = delete;
  ServedView& operator=(const ServedView&) = delete;

  // As the server prints it: http://127.0.0.1:PORT/, with ?token= when it asks for one.
  std::string url() const { return server_->url(); }
  int port() const { return port_; }
  // http://127.0.0.1:PORT, the Origin the page's own requests carry.
  const std::string& origin() const { return origin_; }
  httplib::Client client() const { return httplib::Client("127.0.0.1", port_); }
  web::ViewLoading& loading() { return *loading_; }

 private:
  ServedView(std::unique_ptr<web::ViewLoading> loading, std::unique_ptr<web::ViewService> server);

  std::unique_ptr<web::ViewLoading> loading_;
  std::unique_ptr<web::ViewService> server_;
  std::string origin_;
  int port_ = 0;
  std::thread serving_;
};

}  // namespace canopy::testing
