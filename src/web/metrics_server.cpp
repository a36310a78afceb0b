#include "web/metrics_server.h"

#include <httplib.h>

#include "web/secret_token.h"

namespace canopy::web {
namespace {

void send_text(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(message + "\n", "text/plain; charset=utf-8");
}

}  // namespace

MetricsServer::MetricsServer(const MetricsFeed& feed, const MetricsServerOptions& options)
    : feed_(feed), exposition_(options.top_commands) {}

MetricsServer::~MetricsServer() = default;

Result<std::unique_ptr<MetricsService>> MetricsServer::bind(const MetricsFeed& feed,
                                                            const MetricsServerOptions& options) {
  std::unique_ptr<MetricsServer> server(new MetricsServer(feed, options));
  if (options.require_token) {
    ASSIGN_OR_RETURN(server->token_, random_token("the /metrics token"));
  }
  RETURN_IF_ERROR(server->listener_.bind(options.listen, options.port));
  server->add_routes();
  return std::unique_ptr<MetricsService>(std::move(server));
}

std::string MetricsServer::url() const {
  return "http://" + listener_.authority() + "/metrics" + (token_.empty() ? "" : "?token=" + token_);
}

Status MetricsServer::serve() { return listener_.serve(); }

void MetricsServer::stop() { listener_.stop(); }

bool MetricsServer::token_given(const std::string& authorization, const std::string& query_token) const {
  if (token_.empty()) {
    return true;
  }
  return bearer_carries(authorization, token_) || same_secret(query_token, token_);
}

void MetricsServer::add_routes() {
  httplib::Server& http = listener_.http();
  http.set_default_headers({{"X-Content-Type-Options", "nosniff"}, {"Cache-Control", "no-store"}});
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (req.method != "GET" && req.method != "HEAD") {
      res.set_header("Allow", "GET, HEAD");
      send_text(res, 405, "only GET and HEAD are served");
      return httplib::Server::HandlerResponse::Handled;
    }
    // Prometheus sends no Origin; a page of another site that makes a browser ask
    // does, and DNS rebinding shows in the Host header.
    const std::string origin = req.get_header_value("Origin");
    const std::string host = req.get_header_value("Host");
    if (!listener_.host_allowed(host) || (!origin.empty() && origin != "http://" + host)) {
      send_text(res, 403, "request from another site or host refused");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!token_given(req.get_header_value("Authorization"), req.get_param_value("token"))) {
      res.set_header("WWW-Authenticate", "Bearer realm=\"canopy\"");
      send_text(res, 401, "this server asks for its token: Authorization: Bearer TOKEN, or ?token=TOKEN");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send_text(res, 500, "internal error");
  });
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) {
      send_text(res, res.status, res.status == 404 ? "not found: only /metrics is served" : "bad request");
    }
  });
  http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(exposition_.render_latest(feed_), kMetricsContentType);
  });
}

}  // namespace canopy::web
