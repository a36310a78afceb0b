// The one way canopy turns JSON into text. Strings from a recording (process names,
// command lines, log lines) and from requests can hold bytes that are not UTF-8, on
// which nlohmann's default dump throws (type_error.316); here they become U+FFFD.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace canopy {

// `indent` as nlohmann's: -1 for one line, N for N spaces per level.
inline std::string json_dump(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace canopy
