#include "cli/metrics_serving.h"



#include "common/signal_free_thread.h"
#include "common/terminal_text.h"
#include "web/listen_address.h"
#include "web/metrics_server.h"

namespace canopy::cli {

Result<std::unique_ptr<MetricsServing>> MetricsServing::start(const std::string& listen, int64_t top_commands) {
  ASSIGN_OR_RETURN(auto address, web::parse_listen_address(listen));
  ASSIGN_OR_RETURN(auto module, web::load_web_module());
  std::unique_ptr<MetricsServing> serving(new MetricsServing());
  web::MetricsServerOptions options;
  options.listen = address.address;
  options.port = address.port;
  options.top_commands = top_commands;
  options.require_token = !web::is_loopback_address(address.address);
  auto service = module->bind_metrics_server(serving->feed_, options);
  if (!service) {
    return Error{"--metrics: " + service.error().message};
  }
  serving->service_ = std::move(*service);
  if (auto warning = web::reachable_warning("--metrics", address.address, "tells the tree's command names");
      !warning.empty()) {
    print_error(warning);
  }
  print_error("metrics at " + serving->service_->url());
  MetricsServing* self = serving.get();
  serving->thread_ = signal_free_thread([self] {
    if (auto served = self->service_->serve(); !served) {
      print_error("--metrics: " + served.error().message);
    }
  });
  return serving;
}

MetricsServing::~MetricsServing() {
  if (!thread_.joinable()) {
    return;  // the server could not bind: nothing runs
  }
  service_->stop();  // returns once serve() has
  thread_.join();
}

}  // namespace canopy::cli
