// JSON text into a value for the readers that try whether a line is JSON at all (a
// mark's record, the first line of a log): no exception, a discarded value instead.
// Defined in one file, as json_dump is, so that nlohmann's parser is compiled once.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string_view>

namespace canopy {

// The value `text` holds, or one whose is_discarded() is true when it is not JSON.
nlohmann::json json_parse_or_discarded(std::string_view text);

}  // namespace canopy
