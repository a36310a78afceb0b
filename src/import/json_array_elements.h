// Cuts a file holding one JSON array into its elements with the streaming scanner of
// common/json_stream.h, so memory stays bounded by the largest element, not the file.
// Each element is parsed on its own with simdjson; one simdjson rejects is parsed
// again with nlohmann::json only to say where and why. Errors read
// "FILE:LINE:COLUMN: reason".
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <string>

#include "common/json_stream.h"
#include "common/result.h"

namespace canopy::importers {

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

}  // namespace canopy::importers
