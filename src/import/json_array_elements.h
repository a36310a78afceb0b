// Cuts a file holding one JSON array into its elements, streaming: a small scanner
// (tracking strings and nesting, nothing else) finds where each element ends, so
// memory stays bounded by the largest element, not the file. Each element is then
// parsed on its own with simdjson; one simdjson rejects is parsed again with
// nlohmann::json only to say where and why. Errors read "FILE:LINE:COLUMN: reason".
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <string>

#include "common/result.h"

namespace canopy::importers {

struct TextPosition {
  int64_t line = 1;
  int64_t column = 1;  // in bytes, from 1
};

struct ArrayElement {
  simdjson::dom::element value;  // valid until the visitor returns
  int64_t index;                 // from 0
  TextPosition start;            // of its first byte
};
using ElementVisitor = std::function<Status(const ArrayElement& element)>;

struct ArrayFile {
  std::string path;
  // What the array holds, for the error when the file is something else:
  // "an array of processes [{\"pid\": ..., \"data\": [...]}, ...]".
  std::string expected;
  // Called now and then with how far the scan has read.
  std::function<void(int64_t bytes_done, int64_t bytes_total)> progress;
};

Status for_each_array_element(const ArrayFile& file, const ElementVisitor& visit);

// "FILE:LINE:COLUMN: reason".
Error error_at(const std::string& path, const TextPosition& at, const std::string& reason);

}  // namespace canopy::importers
