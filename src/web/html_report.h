// The viewer as one self-contained HTML file: the embedded page with its script and
// stylesheet inlined and the recording's data embedded (gzip, then base64), for
// attaching to a bug. It opens from file:// and makes no network request: its
// Content-Security-Policy forbids them.
#pragma once

#include <string>

#include "common/result.h"
#include "web/view_data.h"

namespace canopy::web {

// Points per metric series embedded in the report: the whole recording at this
// resolution (a peak is never hidden, see analyze::pick_ticks); the page zooms into it.
inline constexpr size_t kReportPoints = 1500;

Result<std::string> render_html_report(const ViewData& data);

}  // namespace canopy::web
