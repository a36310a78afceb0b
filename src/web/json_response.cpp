#include "web/json_response.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "common/json_dump.h"

namespace canopy::web {

void send_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(json_dump({{"error", message}}), kJson);
}

}  // namespace canopy::web
