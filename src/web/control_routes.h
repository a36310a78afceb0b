// The viewer's only requests that change anything: /api/control, served when the
// server was given a LiveControl. GET /api/control hands the page the per-server token
// (readable by the page's own origin only) and the profilers' states; POST
// /api/control/... needs that token in X-Canopy-Token and the server's own Origin, on
// top of the Host check every request passes (web/API.md).
#pragma once

#include <string>

#include "web/live_control.h"

namespace httplib {
class Server;
struct Request;
}  // namespace httplib

namespace canopy::web {

inline constexpr const char* kControlPrefix = "/api/control";
inline constexpr const char* kControlTokenHeader = "X-Canopy-Token";

// Whether `path` is one the control answers (the pre-routing handler lets POST through
// to these only).
bool is_control_path(const std::string& path);

// Empty when a POST may reach the control; else why it is refused (a 403). `host` has
// passed the Host check already.
std::string control_post_refusal(const httplib::Request& req, const std::string& host, const std::string& token);

// Without a control (nullptr), GET /api/control answers {"control": false} and there
// is no POST route.
void add_control_routes(httplib::Server& http, LiveControl* control, const std::string& token);

}  // namespace canopy::web
