#include "export/cutelooker_log.h"

#include <algorithm>
#include <iterator>

#include "export/json_text.h"

namespace canopy::exporters {

bool is_event_kind(std::string_view kind) {
  return std::find(std::begin(kEventKindList), std::end(kEventKindList), kind) != std::end(kEventKindList);
}

std::string event_kinds_text() {
  std::string text;
  for (std::string_view kind : kEventKindList) {
    text += (text.empty() ? "" : ", ") + std::string(kind);
  }
  return text;
}

Status write_cutelooker_log(const store::Reader& reader, const std::set<std::string>& kinds,
                            const std::function<void(std::string_view)>& out) {
  std::optional<int64_t> open_key;  // the key whose array is being written
  std::string chunk;
  out("{");
  auto status = reader.for_each_event([&](const store::EventRow& event) {
    if (!kinds.empty() && !kinds.contains(event.kind)) {
      return;
    }
    chunk.clear();
    if (open_key != event.t_ms) {
      chunk += open_key ? "],\n\"" : "\n\"";
      chunk += std::to_string(event.t_ms) + "\": [";
      open_key = event.t_ms;
    } else {
      chunk += ", ";
    }
    chunk += json_string(event.kind == "log" ? event.text : "[" + event.kind + "] " + event.text);
    out(chunk);
  });
  if (!status) {
    return status;
  }
  out(open_key ? "]\n}\n" : "}\n");
  return Ok{};
}

}  // namespace canopy::exporters
