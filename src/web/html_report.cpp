#include "web/html_report.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/gzip.h"
#include "common/json_dump.h"
#include "common/scoped_resource.h"
#include "web/assets.h"
#include "web/report_events.h"

namespace canopy::web {
namespace {

constexpr std::string_view kStylesheetLink = R"(<link rel="stylesheet" href="app.css">)";
constexpr std::string_view kScriptTag = R"(<script src="app.js"></script>)";
constexpr std::string_view kHead = "<head>";
// No connections, no frames, nothing from outside; the inline script and styles only.
constexpr std::string_view kReportPolicy =
    R"(<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; )"
    R"(style-src 'unsafe-inline'; img-src data: blob:; connect-src 'none'">)";

std::string base64(const std::string& data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(data.data()), static_cast<int>(data.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

// Replaces the one occurrence of `what` in `text`; false when it is missing.
bool replace_once(std::string& text, std::string_view what, const std::string& with) {
  size_t at = text.find(what);
  if (at == std::string::npos) {
    return false;
  }
  text.replace(at, what.size(), with);
  return true;
}

Result<nlohmann::json> report_events(const EventList& list) {
  std::vector<size_t> positions = pick_report_events(list, kReportEvents);
  ASSIGN_OR_RETURN(auto texts, list.texts(positions));
  size_t cap = text_cap(texts, kReportTextBytes, kMaxEventTextBytes);
  nlohmann::json events = nlohmann::json::array();
  for (size_t i = 0; i < positions.size(); ++i) {
    events.push_back(event_json(list, positions[i], std::move(texts[i]), cap));
  }
  return events;
}

Result<std::string> report_payload(const ViewData& data) {
  nlohmann::json series = nlohmann::json::object();
  const auto& ticks = data.timeline.ticks();
  for (analyze::Metric metric : data.timeline.metrics()) {
    int64_t from = ticks.empty() ? 0 : ticks.front();
    int64_t to = ticks.empty() ? 0 : ticks.back();
    series[analyze::metric_info(metric).id] = series_json(data.timeline.series(metric, from, to, kReportPoints));
  }
  ASSIGN_OR_RETURN(auto events, report_events(*data.events));
  nlohmann::json payload = {
      {"recording", data.recording},
      {"events", std::move(events)},
      {"events_total", data.events->size()},
      {"series", std::move(series)},
  };
  if (data.profiles->cpu.recorded) {
    payload["cpu_profile"] = cpu_report_json(data.profiles->cpu);
  }
  if (data.profiles->heap) {
    payload["heap_profile"] = heap_report_json(*data.profiles->heap);
  }
  return json_dump(payload);
}

}  // namespace

Result<std::string> render_html_report(const ViewData& data) {
  const Asset* page = find_asset("/");
  const Asset* script = find_asset("/app.js");
  const Asset* style = find_asset("/app.css");
  if (!page || !script || !style) {
    return Error{"this canopy was built without its web page"};
  }
  ASSIGN_OR_RETURN(auto payload, report_payload(data));
  ASSIGN_OR_RETURN(auto compressed, gzip(payload));
  std::string html(page->body);
  // base64 holds no '<', and the build checks that the script and stylesheet hold no
  // "</script" or "</style", so nothing embedded can end its element early.
  std::string data_element = R"(<script id="canopy-data" type="application/octet-stream" data-encoding="gzip-base64">)" +
                             base64(compressed) + "</script>";
  bool complete = replace_once(html, kHead, std::string(kHead) + std::string(kReportPolicy)) &&
                  replace_once(html, kStylesheetLink, "<style>" + std::string(style->body) + "</style>") &&
                  replace_once(html, kScriptTag, data_element + "<script>" + std::string(script->body) + "</script>");
  if (!complete) {
    return Error{"this canopy's web page lacks the places for the inlined script and data"};
  }
  return html;
}

}  // namespace canopy::web
