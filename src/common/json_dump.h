// The one way canopy turns JSON into text. Strings from a recording (process names,
// command lines, log lines) and from requests can hold bytes that are not UTF-8, on
// which nlohmann's default dump throws (type_error.316); here they become U+FFFD.
//
// Defined in one file: nlohmann's serializer is then compiled once, not in every layer
// that writes JSON (make bench-build). Callers that build a value include the full
// <nlohmann/json.hpp> themselves.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace canopy {

// `indent` as nlohmann's: -1 for one line, N for N spaces per level.
std::string json_dump(const nlohmann::json& value, int indent = -1);

}  // namespace canopy
