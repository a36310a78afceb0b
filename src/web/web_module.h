// canopy-web.so: the parts of canopy that need cpp-httplib and OpenSSL, which are the
// viewer's server (`canopy view`), the self-contained HTML report
// (`canopy report --html`) and /metrics' server (`canopy record --metrics`).
//
// Loading those libraries (and Debian's cpp-httplib reading OpenSSL's configuration at
// load) costs every canopy process about 5 ms of CPU before main, against about 2 ms
// for all the rest (a bare `main` linked to the same libraries: 7.1 ms with them, 2.0
// ms without; this machine, `perf stat -r 50`). A recorder wrapped around every CI step
// pays that on each one. So the canopy binary does not link them: it loads this module,
// only for the commands that need it (where it looks: load_web_module below).
#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "web/view_data.h"

namespace canopy::web {

struct ServerOptions;         // server.h
struct MetricsServerOptions;  // metrics_server.h
class MetricsFeed;            // metrics_feed.h
class ViewLoading;            // view_loading.h

// The viewer's server as canopy sees it: pure virtual, so canopy calls the module's
// code through the vtable without linking it (ViewServer, server.h, implements it).
class ViewService {
 public:
  virtual ~ViewService() = default;
  virtual std::string url() const = 0;
  // Answers requests until stop(), from any thread.
  virtual Status serve() = 0;
  virtual void stop() = 0;
};

// /metrics' server (`record --metrics`), likewise (MetricsServer implements it).
class MetricsService {
 public:
  virtual ~MetricsService() = default;
  // Where to scrape, with the token when the server asks for one.
  virtual std::string url() const = 0;
  virtual Status serve() = 0;
  virtual void stop() = 0;
};

// The module's entry points, as plain function pointers: the same declarations as in
// server.h and html_report.h.
struct WebModule {
  Result<std::unique_ptr<ViewService>> (*bind_view_server)(ViewLoading& loading, const ServerOptions& options);
  Result<std::string> (*render_html_report)(const ViewData& data);
  Result<std::unique_ptr<MetricsService>> (*bind_metrics_server)(const MetricsFeed& feed,
                                                                  const MetricsServerOptions& options);
};

// The module's file name, and its one exported symbol (a function returning the table).
inline constexpr const char* kWebModuleFile = "canopy-web.so";
inline constexpr const char* kWebModuleEntry = "canopy_web_module";
// Its path, for a layout other than canopy's own (a packager's).
inline constexpr const char* kWebModuleVariable = "CANOPY_WEB_MODULE";

// Loads canopy-web.so, once: from $CANOPY_WEB_MODULE, else beside the running
// executable, else from ../lib/canopy/ of it (an install). An error names where it
// looked, or the file and what the loader said.
Result<const WebModule*> load_web_module();

}  // namespace canopy::web
