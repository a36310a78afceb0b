// logs/: turning foreign logs into timeline events. One parser per format, each
// streaming its file (bounded memory whatever the size) into an EventSink; the
// importer stores what the sink receives in one transaction. Parsers name the file,
// line and, where known, column of the first malformed input, and stop there.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "logs/local_zone.h"

namespace canopy::logs {

// Receives each event: its time (ms since the epoch, UTC) and its text, valid UTF-8.
using EventSink = std::function<Status(int64_t t_ms, std::string_view text)>;

struct ParseInput {
  std::string path;
  const LocalZone* zone = nullptr;  // for times written without a zone
  int64_t reference_ms = 0;         // the recording's start: the year of syslog times
  std::string time_field;           // jsonl: overrides the usual names
  std::string message_field;
  // Called now and then with how far the parse has read.
  std::function<void(int64_t bytes_done, int64_t bytes_total)> progress;
};

// {"1643811426000": ["first message", "second message"], ...}
Status parse_cutelooker_log(const ParseInput& input, const EventSink& sink);
// CMake's --trace-format=json-v1: a version object, then one object per command.
Status parse_cmake_trace(const ParseInput& input, const EventSink& sink);
// Text whose entries start with a timestamp; lines without one continue the entry.
Status parse_text_log(const ParseInput& input, const EventSink& sink);
// One JSON object per line with a time field (journalctl -o json, structured loggers).
Status parse_jsonl_log(const ParseInput& input, const EventSink& sink);

}  // namespace canopy::logs
