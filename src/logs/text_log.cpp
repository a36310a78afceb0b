// Plain text whose entries start with a timestamp:
//   2026-11-22 10:15:30,123 INFO worker: started
//   2026-11-22 10:15:31,007 ERROR worker: failed
//   Traceback (most recent call last):
//     File "job.py", line 3, in <module>
// Lines without a timestamp belong to the entry before (a stack trace stays one event);
// lines before the first timestamp go with the first entry. The importer locks onto
// the form of the first timestamp (ISO, syslog, epoch), so that a continuation line
// that happens to start with a number is not taken for a new entry.
#include "common/utf8.h"
#include "logs/line_reader.h"
#include "logs/log_parser.h"
#include "logs/timestamp.h"

namespace canopy::logs {
namespace {

// One entry's text is capped: a file with one timestamp and a gigabyte of
// continuation lines must still import in bounded memory. Its first MiB is kept (the
// line that crosses the cap too, up to it, in whole characters), then the marker.
constexpr size_t kMaxEntryBytes = 1 << 20;
constexpr std::string_view kTruncated = "\n[... truncated by canopy: entry over 1 MiB]";

struct Entry {
  int64_t t_ms = 0;
  std::string text;
  bool truncated = false;

  void append_line(std::string_view line) {
    if (truncated) {
      return;
    }
    size_t separator = text.empty() ? 0 : 1;
    if (text.size() + separator + line.size() > kMaxEntryBytes) {
      if (text.size() + separator < kMaxEntryBytes) {
        text.append(separator, '\n');
        text += utf8_prefix(line, kMaxEntryBytes - text.size());
      }
      text += kTruncated;
      truncated = true;
      return;
    }
    text.append(separator, '\n');
    text += line;
  }
};

}  // namespace

Status parse_text_log(const ParseInput& input, const EventSink& sink) {
  ASSIGN_OR_RETURN(auto reader, LineReader::open(input.path));
  TimestampContext context{input.zone, input.reference_ms, std::nullopt};
  std::optional<TimestampForm> form;
  std::optional<Entry> entry;
  Entry preamble;  // lines before the first timestamp
  auto flush = [&]() -> Status {
    if (!entry) {
      return Ok{};
    }
    // Blank lines between entries belong to neither.
    size_t end = entry->text.find_last_not_of("\n \t");
    entry->text.resize(end == std::string::npos ? 0 : end + 1);
    return sink(entry->t_ms, entry->text);
  };
  std::string_view line;
  while (reader.next(line)) {
    if (input.progress && (reader.line_number() & 0x3FFF) == 0) {
      input.progress(reader.bytes_consumed(), reader.file_size_bytes());
    }
    auto stamp = parse_leading_timestamp(line, context, form);
    if (!stamp) {
      (entry ? *entry : preamble).append_line(line);
      continue;
    }
    if (auto status = flush(); !status) {
      return status;
    }
    form = stamp->form;
    context.previous_ms = stamp->epoch_ms;
    entry.emplace();
    entry->t_ms = stamp->epoch_ms;
    if (!preamble.text.empty()) {
      entry->text = std::move(preamble.text);
      entry->truncated = preamble.truncated;  // its marker is in the text already
      preamble = Entry{};
    }
    entry->append_line(line.substr(stamp->length));
  }
  if (reader.error()) {
    return *reader.error();
  }
  if (!entry) {
    return Error{input.path + ": no line starts with a timestamp (ISO-8601, 'YYYY-MM-DD HH:MM:SS,mmm', epoch "
                              "seconds or milliseconds, or syslog 'Mon DD HH:MM:SS')"};
  }
  return flush();
}

}  // namespace canopy::logs
