// record --metrics from the CLI's side: binds /metrics' server (from canopy-web.so)
// before the recording starts, serves it on a thread of its own while the recorder's
// loop publishes into the feed, and stops it when the recording ends.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "common/result.h"
#include "web/metrics_feed.h"
#include "web/web_module.h"

namespace canopy::cli {

class MetricsServing {
 public:
  // Binds `listen` (ADDR:PORT, checked already) and starts serving; prints the URL to
  // scrape, and a warning when it is not loopback-only.
  static Result<std::unique_ptr<MetricsServing>> start(const std::string& listen, int64_t top_commands);
  ~MetricsServing();  // stops the server and joins its thread
  MetricsServing(const MetricsServing&) = delete;
  MetricsServing& operator=(const MetricsServing&) = delete;

  web::MetricsFeed& feed() { return feed_; }

 private:
  MetricsServing() = default;

  web::MetricsFeed feed_;
  std::unique_ptr<web::MetricsService> service_;
  std::thread thread_;
};

}  // namespace canopy::cli
