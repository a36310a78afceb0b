#include "web/server.h"

#include <httplib.h>

#include "common/json_dump.h"
#include "web/api_answers.h"
#include "web/assets.h"
#include "web/control_routes.h"
#include "web/secret_token.h"

namespace canopy::web {
namespace {

// The cookie that carries the access token (ServerOptions::require_token).
constexpr std::string_view kAccessCookie = "canopy_token";
// GET /api/live checks this often whether its client has gone, and sends a comment
// when nothing happened for kLiveKeepAlive.
constexpr std::chrono::milliseconds kLiveWait{1000};
constexpr std::chrono::milliseconds kLiveKeepAlive{15000};

// Scripts only from the page's own origin (no inline, no eval); uPlot sets inline styles.
constexpr const char* kContentSecurityPolicy =
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'";

}  // namespace

ViewServer::ViewServer(ViewLoading& loading, const ServerOptions& options)
    : loading_(loading), options_(options) {}

ViewServer::~ViewServer() = default;

Result<std::unique_ptr<ViewService>> ViewServer::bind(ViewLoading& loading, const ServerOptions& options) {
  std::unique_ptr<ViewServer> server(new ViewServer(loading, options));
  if (options.control) {
    ASSIGN_OR_RETURN(server->control_token_, random_token("the live control's token"));
  }
  if (options.require_token) {
    ASSIGN_OR_RETURN(server->access_token_, random_token("the viewer's access token"));
  }
  RETURN_IF_ERROR(server->listener_.bind(options.listen, options.port));
  server->add_routes();
  return std::unique_ptr<ViewService>(std::move(server));
}

std::string ViewServer::url() const {
  return "http://" + listener_.authority() + "/" + (access_token_.empty() ? "" : "?token=" + access_token_);
}

bool ViewServer::access_allowed(const httplib::Request& req, httplib::Response& res) const {
  if (access_token_.empty()) {
    return true;
  }
  if (req.has_param("token") && same_secret(req.get_param_value("token"), access_token_)) {
    // Strict: another site's page never sends it, not even in a link's navigation.
    res.set_header("Set-Cookie", std::string(kAccessCookie) + "=" + access_token_ +
                                     "; HttpOnly; SameSite=Strict; Path=/");
    return true;
  }
  if (bearer_carries(req.get_header_value("Authorization"), access_token_)) {
    return true;
  }
  // Cookie: a=1; canopy_token=...; b=2
  const std::string cookies = req.get_header_value("Cookie");
  const std::string name = std::string(kAccessCookie) + "=";
  for (size_t at = 0; at < cookies.size();) {
    size_t end = cookies.find(';', at);
    std::string cookie = cookies.substr(at, end == std::string::npos ? std::string::npos : end - at);
    cookie.erase(0, cookie.find_first_not_of(' '));
    if (cookie.starts_with(name) && same_secret(cookie.substr(name.size()), access_token_)) {
      return true;
    }
    at = end == std::string::npos ? cookies.size() : end + 1;
  }
  return false;
}

Status ViewServer::serve() { return listener_.serve(); }

void ViewServer::stop() { listener_.stop(); }

std::shared_ptr<const std::string> ViewServer::recording_body() {
  // Read before the data: the follower counts an update after making it, so a body
  // made under a newer version than read here is only made again.
  const uint64_t version = loading_.version();
  std::lock_guard lock(recording_body_mutex_);
  if (!recording_body_ || recording_body_version_ != version) {
    recording_body_ = std::make_shared<const std::string>(json_dump(data().recording));
    recording_body_version_ = version;
  }
  return recording_body_;
}

void ViewServer::answer_live(httplib::Response& res) {
  // Each event says what changed little: the page asks for what it shows again.
  res.set_chunked_content_provider(
      "text/event-stream",
      [this, seen = uint64_t(0), quiet_waits = 0, watching = loading_.watch()](size_t, httplib::DataSink& sink) mutable {
        const uint64_t version = loading_.wait_for_update(seen, seen == 0 ? std::chrono::milliseconds(0) : kLiveWait);
        if (!sink.is_writable()) {
          return false;
        }
        if (version == seen) {
          // A comment now and then, so that proxies and the browser keep the stream open.
          if (++quiet_waits * kLiveWait >= kLiveKeepAlive) {
            quiet_waits = 0;
            return sink.write(": still here\n\n", 14);
          }
          return true;
        }
        seen = version;
        quiet_waits = 0;
        nlohmann::json update;
        {
          auto lock = loading_.read_lock();
          const auto& ticks = data().timeline.ticks();
          update = {{"version", version},
                    {"following", loading_.following()},
                    {"last_tick_ms", ticks.empty() ? nlohmann::json(nullptr) : nlohmann::json(ticks.back())},
                    {"processes", data().timeline.processes().size()}};
        }
        if (auto failure = loading_.follow_failure()) {
          update["error"] = failure->message;
        }
        std::string event = "event: update\ndata: " + json_dump(update) + "\n\n";
        if (!sink.write(event.data(), event.size())) {
          return false;
        }
        if (!update["following"].get<bool>()) {
          sink.done();  // the recording has ended: nothing more will come
        }
        return true;
      });
}

bool ViewServer::request_allowed(const std::string& host, const std::string& origin,
                                 const std::string& fetch_site) const {
  if (!listener_.host_allowed(host)) {
    return false;
  }
  if (!origin.empty() && origin != "http://" + host) {
    return false;
  }
  return fetch_site.empty() || fetch_site == "same-origin" || fetch_site == "none";
}

bool ViewServer::control_post_allowed(const httplib::Request& req, httplib::Response& res) const {
  const std::string host = req.get_header_value("Host");
  std::string refusal = listener_.host_allowed(host) ? control_post_refusal(req, host, control_token_)
                                                     : "request from another site or host refused";
  if (!refusal.empty()) {
    send_error(res, 403, refusal);
    return false;
  }
  return true;
}

void ViewServer::add_routes() {
  httplib::Server& http = listener_.http();
  http.set_default_headers({
      {"Content-Security-Policy", kContentSecurityPolicy},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      {"Cache-Control", "no-store"},
  });
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!access_allowed(req, res)) {
      res.set_header("WWW-Authenticate", "Bearer realm=\"canopy\"");
      send_error(res, 401, "this server asks for its token: open the URL it printed (?token=TOKEN)");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.method == "POST" && options_.control && is_control_path(req.path)) {
      return control_post_allowed(req, res) ? httplib::Server::HandlerResponse::Unhandled
                                            : httplib::Server::HandlerResponse::Handled;
    }
    if (req.method != "GET" && req.method != "HEAD") {
      res.set_header("Allow", "GET, HEAD");
      send_error(res, 405, "only GET and HEAD are served");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!request_allowed(req.get_header_value("Host"), req.get_header_value("Origin"),
                         req.get_header_value("Sec-Fetch-Site"))) {
      send_error(res, 403, "request from another site or host refused");
      return httplib::Server::HandlerResponse::Handled;
    }
    // The embedded assets go as they are: httplib would compress the text ones anew
    // with brotli at its highest quality for each page load, milliseconds of CPU each
    // time to spare a few kB on loopback, so the request is made to accept none.
    if (!req.path.starts_with("/api/")) {
      const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
    }
    // What needs the samples waits for them, but the preview (view_loading.h).
    bool preview = req.path == "/api/recording" && req.has_param("preview");
    if (req.path.starts_with("/api/") && !preview && !is_control_path(req.path)) {
      if (Status loaded = loading_.wait_finished(); !loaded) {
        send_error(res, 500, loaded.error().message);
        return httplib::Server::HandlerResponse::Handled;
      }
      loading_.catch_up();  // a recording followed while no page watches it
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // A handler that throws answers 500 with the reason; nothing a request holds may take
  // the server down.
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr thrown) {
    std::string reason = "internal error";
    try {
      std::rethrow_exception(thrown);
    } catch (const std::exception& e) {
      reason += std::string(": ") + e.what();
    } catch (...) {
    }
    send_error(res, 500, reason);
  });
  // Anything without a route: the same answer whatever the path holds (.., %2e%2e,
  // absolute paths), since nothing is ever looked up on disk.
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) {
      send_error(res, res.status, res.status == 404 ? "not found" : "bad request");
    }
  });

  for (const Asset& asset : embedded_assets()) {
    http.Get(std::string(asset.path), [&asset](const httplib::Request&, httplib::Response& res) {
      res.set_content(asset.body.data(), asset.body.size(), std::string(asset.content_type).c_str());
    });
  }
  // The API reads the data under the loading's read lock: a recording followed live
  // changes between two requests, never during one.
  auto read_locked = [this](auto handler) {
    return [this, handler](const httplib::Request& req, httplib::Response& res) {
      auto lock = loading_.read_lock();
      handler(req, res);
    };
  };
  // preview=1 while loading: the preview at once.
  http.Get("/api/recording", [this](const httplib::Request& req, httplib::Response& res) {
    if (loading_.data()) {
      auto lock = loading_.read_lock();
      if (req.has_param("since")) {
        return answer_recording_since(req, res, data());
      }
      auto body = recording_body();
      return res.set_content(*body, kJson);
    }
    res.set_content(json_dump(loading_.preview()), kJson);
  });
  http.Get("/api/live", [this](const httplib::Request&, httplib::Response& res) { answer_live(res); });
  http.Get("/api/events", read_locked([this](const httplib::Request& req, httplib::Response& res) {
             answer_events(req, res, *data().events);
           }));
  for (const char* what : {"cpu/heatmap", "cpu/flame", "heap/flame", "heap/diff"}) {
    http.Get(std::string("/api/") + what,
             read_locked([this, what](const httplib::Request& req, httplib::Response& res) {
               answer_profile(req, res, data(), what);
             }));
  }
  add_control_routes(http, options_.control, control_token_);
  http.Get("/api/series", read_locked([this](const httplib::Request& req, httplib::Response& res) {
    answer_series(req, res, data().timeline);
  }));
  http.Get("/api/at", read_locked([this](const httplib::Request& req, httplib::Response& res) {
    answer_at(req, res, data().timeline);
  }));
}

}  // namespace canopy::web
