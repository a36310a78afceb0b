// Small pieces of JSON text for the exporters that write their documents by hand, a
// piece at a time (a recording can have millions of samples: no document is built).
#pragma once

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_dump.h"

namespace canopy::exporters {

// A JSON string literal; bytes that are not UTF-8 (process names from /proc can hold
// anything) become U+FFFD.
inline std::string json_string(const std::string& text) {
  return json_dump(text);
}

// `value` with at most `decimals` decimals and no trailing zeros: "12.5", "0", "3.142".
// printf's rounding is the same everywhere, so golden files stay byte-for-byte.
inline std::string json_decimal(double value, int decimals) {
  if (!std::isfinite(value)) {
    return "0";
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  std::string out = text;
  if (out.find('.') != std::string::npos) {
    out.erase(out.find_last_not_of('0') + 1);
    if (out.back() == '.') {
      out.pop_back();
    }
  }
  return out == "-0" ? "0" : out;
}

}  // namespace canopy::exporters
