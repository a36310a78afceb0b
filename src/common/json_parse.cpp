#include "common/json_parse.h"

#include <nlohmann/json.hpp>

namespace canopy {

nlohmann::json json_parse_or_discarded(std::string_view text) {
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace canopy
