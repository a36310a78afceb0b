// The one symbol canopy-web.so exports (see web_module.h).
#include "web/html_report.h"
#include "web/metrics_server.h"
#include "web/server.h"
#include "web/web_module.h"

namespace {

const canopy::web::WebModule kModule{
    &canopy::web::ViewServer::bind,
    &canopy::web::render_html_report,
    &canopy::web::MetricsServer::bind,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const canopy::web::WebModule* canopy_web_module() {
  return &kModule;
}
