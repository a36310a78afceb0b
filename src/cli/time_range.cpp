#include "cli/time_range.h"

#include <string>
#include <utility>

#include "common/terminal_text.h"
#include "common/text.h"

namespace canopy::cli {

Status check_time_range(int64_t from_ms, int64_t to_ms) {
  if (from_ms >= 0 && to_ms >= 0 && to_ms <= from_ms) {
    return Error{"--to " + format_duration_ms(to_ms) + " is not after --from " + format_duration_ms(from_ms)};
  }
  return Ok{};
}

namespace {

Status check_from_within(int64_t from_ms, const store::Reader& reader) {
  const store::RecordingMeta& meta = reader.meta();
  if (from_ms < 0 || !meta.start_ms || !meta.end_ms) {
    return Ok{};
  }
  const int64_t length_ms = *meta.end_ms - *meta.start_ms;
  if (from_ms >= length_ms) {
    return Error{"--from " + format_duration_ms(from_ms) + " is not before the end of '" + reader.path() +
                 "', which lasts " + format_duration_ms(length_ms)};
  }
  return Ok{};
}

}  // namespace

std::optional<store::Reader> open_recording_in_range(const std::string& path, int64_t from_ms, int64_t to_ms,
                                                     int& exit_status) {
  if (Status range = check_time_range(from_ms, to_ms); !range) {
    print_error(range.error().message);
    exit_status = 2;
    return std::nullopt;
  }
  auto reader = store::Reader::open(path);
  Status within = reader ? check_from_within(from_ms, *reader) : Status(reader.error());
  if (!within) {
    print_error(within.error().message);
    exit_status = reader ? 2 : 1;
    return std::nullopt;
  }
  return std::move(*reader);
}

}  // namespace canopy::cli
