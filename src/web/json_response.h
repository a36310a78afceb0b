// How the viewer's server answers in JSON: the API's answers (api_answers.h), the
// process switch (control_routes.h) and the server's own refusals (server.h) alike.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace httplib {
struct Response;
}  // namespace httplib

namespace canopy::web {

// cpp-httplib compresses a response when the browser accepts it and the content type
// is exactly "application/json" or "application/javascript" (or text/*). Its brotli and
// gzip take seconds for a series of a few MB, while loopback moves it in milliseconds:
// with a charset parameter the type is the same to the browser and is not compressed.
inline constexpr const char* kJson = "application/json; charset=utf-8";

// {"error": MESSAGE} with `status`.
void send_error(httplib::Response& res, int status, const std::string& message);

}  // namespace canopy::web
