// `record --metrics`: /metrics over HTTP, from the recorder's own process, for
// Prometheus to scrape. Answers from the latest figures the sampling loop published
// (metrics_feed.h), never from /proc or the recording, so a scrape costs the same at
// any point of a recording, and on its own threads, so it never holds the loop up.
//
// Secure by default, as the viewer is (server.h): loopback unless told otherwise, GET
// and HEAD only, Host checked against DNS rebinding, another site's Origin refused. On
// any other address it also asks for a token, made at random for each server and
// carried by the URL it prints: as `Authorization: Bearer TOKEN` or `?token=TOKEN`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/result.h"
#include "web/http_listener.h"
#include "web/listen_address.h"
#include "web/metrics_exposition.h"
#include "web/metrics_feed.h"
#include "web/web_module.h"

namespace canopy::web {

struct MetricsServerOptions {
  std::string listen = kLoopbackAddress;
  int port = 0;  // 0: any free port
  int64_t top_commands = kDefaultMetricsTopCommands;
  bool require_token = false;  // the CLI asks for it on any address but loopback
};

// Built into canopy-web.so (web_module.h), which hands it out as a MetricsService.
class MetricsServer final : public MetricsService {
 public:
  static Result<std::unique_ptr<MetricsService>> bind(const MetricsFeed& feed, const MetricsServerOptions& options);
  ~MetricsServer() override;

  std::string url() const override;
  Status serve() override;
  void stop() override;

 private:
  MetricsServer(const MetricsFeed& feed, const MetricsServerOptions& options);
  void add_routes();
  bool token_given(const std::string& authorization, const std::string& query_token) const;

  const MetricsFeed& feed_;
  MetricsExposition exposition_;
  std::string token_;  // empty: none asked
  HttpListener listener_;
};

}  // namespace canopy::web
