#include "logs/log_importer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/file_digest.h"
#include "common/scoped_resource.h"
#include "common/utf8.h"
#include "logs/log_parser.h"
#include "probe/system.h"
#include "store/log_import.h"
#include "store/reader.h"

namespace canopy::logs {
namespace {

constexpr size_t kHeadBytes = 64 << 10;

struct RecordingFacts {
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  std::string timezone;
  std::optional<int64_t> utc_offset_s;
};

Result<RecordingFacts> read_recording_facts(const std::string& path) {
  ASSIGN_OR_RETURN(auto reader, store::Reader::open(path, store::Reader::Verify::kWhileReading));
  RecordingFacts facts;
  const store::RecordingMeta& meta = reader.meta();
  facts.start_ms = meta.start_ms.value_or(0);
  if (auto end = meta.end_ms) {
    facts.end_ms = *end;
  } else {
    // An interrupted recording ends at its last tick.
    ASSIGN_OR_RETURN(auto ticks, reader.ticks());
    facts.end_ms = ticks.empty() ? facts.start_ms : ticks.back().t_ms;
  }
  facts.timezone = meta.timezone.value_or("");
  facts.utc_offset_s = meta.utc_offset_s;
  return facts;
}

// --tz, else the zone the recording's host was in, else its UTC offset at the time.
Result<LocalZone> choose_zone(const std::string& tz, const RecordingFacts& facts) {
  if (!tz.empty()) {
    return LocalZone::load(tz);
  }
  if (!facts.timezone.empty()) {
    if (auto zone = LocalZone::load(facts.timezone)) {
      return zone;
    }
  }
  if (facts.utc_offset_s) {
    int64_t minutes = std::abs(*facts.utc_offset_s) / 60;
    char offset[48];
    std::snprintf(offset, sizeof offset, "%c%02lld:%02lld", *facts.utc_offset_s < 0 ? '-' : '+',
                  static_cast<long long>(minutes / 60), static_cast<long long>(minutes % 60));
    return LocalZone::load(offset);
  }
  return LocalZone::load("UTC");
}

Result<std::string> read_head(const std::string& path, int64_t& size_bytes) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return Error{"cannot read '" + path + "': " + std::strerror(errno)};
  }
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error{"cannot read '" + path + "': not a regular file"};
  }
  size_bytes = st.st_size;
  std::string head(kHeadBytes, '\0');
  ssize_t n;
  while ((n = ::pread(fd.get(), head.data(), head.size(), 0)) < 0 && errno == EINTR) {
  }
  if (n < 0) {
    return Error{"cannot read '" + path + "': " + std::strerror(errno)};
  }
  head.resize(static_cast<size_t>(n));
  if (head.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Error{"cannot add '" + path + "': the file is empty"};
  }
  return head;
}

Status parse(LogFormat format, const ParseInput& input, const EventSink& sink) {
  switch (format) {
    case LogFormat::kCutelooker:
      return parse_cutelooker_log(input, sink);
    case LogFormat::kCmakeTrace:
      return parse_cmake_trace(input, sink);
    case LogFormat::kLines:
      return parse_text_log(input, sink);
    case LogFormat::kJsonl:
      return parse_jsonl_log(input, sink);
  }
  return Error{"unknown format"};
}

}  // namespace

Status check_flags_fit_format(const LogAddOptions& options, LogFormat format) {
  const std::string read_as = "; '" + options.file + "' is read as " + log_format_name(format) +
                              (options.format ? "" : " (detected; --format picks another)");
  if (format != LogFormat::kJsonl) {
    for (auto [given, flag] : {std::pair{!options.time_field.empty(), "--time-field"},
                               std::pair{!options.message_field.empty(), "--message-field"}}) {
      if (given) {
        return Error{std::string(flag) + " applies to jsonl logs only" + read_as};
      }
    }
  }
  if (!options.tz.empty() && format != LogFormat::kLines && format != LogFormat::kJsonl) {
    return Error{"--tz applies to logs whose times may lack a zone (lines, jsonl) only" + read_as};
  }
  return Ok{};
}

Result<LogAddResult> add_log(const LogAddOptions& options) {
  ASSIGN_OR_RETURN(auto facts, read_recording_facts(options.recording));
  ASSIGN_OR_RETURN(auto zone, choose_zone(options.tz, facts));
  LogAddResult result;
  result.zone = zone.name();
  result.span_start_ms = facts.start_ms;
  result.span_end_ms = facts.end_ms;
  ASSIGN_OR_RETURN(auto head, read_head(options.file, result.bytes));
  TimestampContext context{&zone, facts.start_ms, std::nullopt};
  if (options.format) {
    result.format = *options.format;
  } else {
    ASSIGN_OR_RETURN(auto detected, detect_log_format(options.file, head, context));
    result.format = detected;
  }
  RETURN_IF_ERROR(check_flags_fit_format(options, result.format));

  // What tells a log already added from a new one, whatever its name: one more pass
  // over the file, before the parse, so that a refusal comes before the long part.
  ASSIGN_OR_RETURN(auto content_sha256, file_sha256_hex(options.file));
  store::LogSourceRow source;
  source.name = options.file;
  source.format = log_format_name(result.format);
  source.added_ms = probe::now_epoch_ms();
  ASSIGN_OR_RETURN(auto import, store::LogImport::begin(options.recording, source, content_sha256,
                                        options.again ? store::SameContent::kAddAgain : store::SameContent::kRefuse,
                                        facts.start_ms, facts.end_ms));
  ParseInput input{options.file, &zone, facts.start_ms, options.time_field, options.message_field, options.progress};
  std::string scratch;
  auto status = parse(result.format, input, [&](int64_t t_ms, std::string_view text) -> Status {
    result.first_ms = std::min(result.first_ms.value_or(t_ms), t_ms);
    result.last_ms = std::max(result.last_ms.value_or(t_ms), t_ms);
    return import.add(t_ms, sanitized_utf8(text, scratch));
  });
  if (!status) {
    return status.error();  // ~LogImport rolls the transaction back
  }
  RETURN_IF_ERROR(import.commit());
  result.events = import.events();
  result.outside_span = import.outside_span();
  return result;
}

}  // namespace canopy::logs
