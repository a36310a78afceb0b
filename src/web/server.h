// The viewer's HTTP server: the embedded page and the JSON API of one recording.
//
// Secure by default, since a recording holds command lines, which can hold secrets:
// it listens on 127.0.0.1 unless told otherwise, answers GET and HEAD only (but the
// live control's POSTs, when given one: control_routes.h), serves
// nothing but its embedded assets and the API (exact paths, never a file lookup), and
// refuses requests whose Host is not its own (DNS rebinding) or whose Origin or
// Sec-Fetch-Site shows another site made them.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "common/result.h"
#include "web/http_listener.h"
#include "web/live_control.h"
#include "web/view_data.h"
#include "web/view_loading.h"
#include "web/web_module.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace canopy::web {

struct ServerOptions {
  std::string listen = "127.0.0.1";
  int port = 0;  // 0: any free port
  // A recording being made: the page may switch its profilers (control_routes.h). Not
  // owned; outlives the server. Without one, nothing but GET and HEAD is answered
  // and GET /api/control says there is none.
  LiveControl* control = nullptr;
  // Every request needs the server's access token (off loopback, view and --serve): the
  // URL url() gives carries it (?token=), and the answer to a request with it sets it
  // as a cookie, which the page's own requests then carry.
  bool require_token = false;
};

// Built into canopy-web.so (web_module.h), which hands it out as a ViewService.
class ViewServer final : public ViewService {
 public:
  // Binds the socket, so the URL is known (and connections queue) before serve().
  // Until `loading` has loaded, GET /api/recording?preview=1 answers its preview and
  // the other API requests wait for the load (web/API.md).
  static Result<std::unique_ptr<ViewService>> bind(ViewLoading& loading, const ServerOptions& options);
  ~ViewServer() override;

  std::string url() const override;
  Status serve() override;
  void stop() override;

 private:
  ViewServer(ViewLoading& loading, const ServerOptions& options);
  // The loaded recording: the routes past the pre-routing handler's check only.
  const ViewData& data() const { return *loading_.data(); }
  // GET /api/recording once loaded, serialised once per update (view_loading.h).
  // Under the loading's read lock.
  std::shared_ptr<const std::string> recording_body();
  // GET /api/live: server-sent events, one per update of a recording followed live.
  void answer_live(httplib::Response& res);
  void add_routes();
  bool request_allowed(const std::string& host, const std::string& origin, const std::string& fetch_site) const;
  // Whether a POST may reach the control; answers 405 or 403 itself when not.
  bool control_post_allowed(const httplib::Request& req, httplib::Response& res) const;

  ViewLoading& loading_;
  ServerOptions options_;
  std::mutex recording_body_mutex_;
  uint64_t recording_body_version_ = 0;
  std::shared_ptr<const std::string> recording_body_;
  std::string control_token_;  // set when options_.control is
  std::string access_token_;   // set when options_.require_token is
  // Whether `req` carries the access token (or none is asked for); sets the cookie
  // when it came in the URL.
  bool access_allowed(const httplib::Request& req, httplib::Response& res) const;
  HttpListener listener_;
};

}  // namespace canopy::web
