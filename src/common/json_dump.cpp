#include "common/json_dump.h"

#include <nlohmann/json.hpp>

namespace canopy {

std::string json_dump(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace canopy
