#include "web/control_routes.h"

#include <httplib.h>

#include "common/json_dump.h"
#include "common/text.h"
#include "web/json_response.h"
#include "web/secret_token.h"

namespace canopy::web {
namespace {

// `pid=N`, required, a positive integer.
Result<int64_t> pid_param(const httplib::Request& req) {
  if (!req.has_param("pid")) {
    return Error{"parameter 'pid' is required"};
  }
  const std::string text = req.get_param_value("pid");
  auto pid = parse_int<int64_t>(text);
  if (!pid || *pid <= 0) {
    return Error{"parameter 'pid' is not a process id: '" + text.substr(0, 40) + "'"};
  }
  return *pid;
}

// Runs `act` on the request's PID: 400 for a bad PID, 409 with the control's line when
// it refuses (not a live process of the tree, profiler not loaded), else `act`'s JSON.
template <typename Act>
void answer_with_pid(const httplib::Request& req, httplib::Response& res, Act act) {
  auto pid = pid_param(req);
  if (!pid) {
    return send_error(res, 400, pid.error().message);
  }
  Result<nlohmann::json> answer = act(*pid);
  if (!answer) {
    return send_error(res, 409, answer.error().message);
  }
  res.set_content(json_dump(*answer), kJson);
}

nlohmann::json done(int64_t pid) { return {{"pid", pid}, {"ok", true}}; }

}  // namespace

bool is_control_path(const std::string& path) {
  return path == kControlPrefix || path.starts_with(std::string(kControlPrefix) + "/");
}

std::string control_post_refusal(const httplib::Request& req, const std::string& host, const std::string& token) {
  // A browser sends Origin with every POST (fetch and forms alike), so a POST without
  // one did not come from the page; with the token required as well, neither a page of
  // another site (it cannot read the token) nor a form can change anything.
  const std::string origin = req.get_header_value("Origin");
  if (origin.empty()) {
    return "a control request needs the page's Origin";
  }
  if (origin != "http://" + host) {
    return "control request from another site refused";
  }
  if (!same_secret(req.get_header_value(kControlTokenHeader), token)) {
    return std::string("a control request needs this server's token in ") + kControlTokenHeader;
  }
  return "";
}

void add_control_routes(httplib::Server& http, LiveControl* live, const std::string& token) {
  if (!live) {
    // Answered rather than 404: the page asks on every load, and a browser logs every
    // failed request on the console.
    http.Get(kControlPrefix, [](const httplib::Request&, httplib::Response& res) {
      res.set_content(json_dump({{"control", false}}), kJson);
    });
    return;
  }
  LiveControl& control = *live;
  http.Get(kControlPrefix, [&control, token](const httplib::Request&, httplib::Response& res) {
    res.set_content(json_dump({{"control", true}, {"token", token}, {"processes", control.profiler_states()}}),
                    kJson);
  });
  const std::string prefix = kControlPrefix;
  http.Post(prefix + "/heap-sampling", [&control](const httplib::Request& req, httplib::Response& res) {
    const std::string on = req.get_param_value("on");
    if (on != "1" && on != "0") {
      return send_error(res, 400, "parameter 'on' must be 1 or 0, not '" + on.substr(0, 40) + "'");
    }
    answer_with_pid(req, res, [&](int64_t pid) -> Result<nlohmann::json> {
      RETURN_IF_ERROR(control.set_heap_sampling(pid, on == "1"));
      nlohmann::json answer = done(pid);
      answer["sampling"] = on == "1";
      return answer;
    });
  });
  http.Post(prefix + "/heap-snapshot", [&control](const httplib::Request& req, httplib::Response& res) {
    answer_with_pid(req, res, [&](int64_t pid) -> Result<nlohmann::json> {
      RETURN_IF_ERROR(control.take_heap_snapshot(pid));
      return done(pid);
    });
  });
  http.Post(prefix + "/memory-map", [&control](const httplib::Request& req, httplib::Response& res) {
    answer_with_pid(req, res, [&](int64_t pid) { return control.take_memory_map(pid); });
  });
}

}  // namespace canopy::web
