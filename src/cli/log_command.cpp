#include <cstdio>

#include "cli/commands.h"
#include "cli/progress_line.h"
#include "common/text.h"
#include "logs/log_importer.h"

namespace canopy::cli {

CLI::App* add_log_command(CLI::App& app, LogAddCliOptions& options) {
  CLI::App* log = app.add_subcommand("log", "Link application logs to a recording's timeline");
  log->require_subcommand(1);
  CLI::App* add = log->add_subcommand("add", "Import a log file into a recording (one transaction: all or nothing)");
  add->add_option("recording", options.recording, "The .canopy file")->required();
  add->add_option("file", options.file, "The log file")->required();
  add->add_option("--format", options.format,
                  std::string("Log format: ") + logs::kLogFormatNames + " (default: detected from the file)");
  add->add_option("--tz", options.tz,
                  "Time zone of timestamps written without one, e.g. Europe/Berlin, UTC, +01:00 "
                  "(default: the zone of the recording's host)");
  add->add_option("--time-field", options.time_field, "jsonl: the field holding the time");
  add->add_option("--message-field", options.message_field, "jsonl: the field holding the message");
  add->add_flag("--again", options.again,
                "Add the file even if the recording already holds a log with the same content "
                "(its events are then there twice)");
  return add;
}

int run_log_add_command(const LogAddCliOptions& cli) {
  logs::LogAddOptions options;
  options.recording = cli.recording;
  options.file = cli.file;
  if (!cli.format.empty()) {
    options.format = logs::log_format_from_name(cli.format);
    if (!options.format) {
      std::fprintf(stderr, "canopy: unknown log format '%s' (known: %s)\n", cli.format.c_str(), logs::kLogFormatNames);
      return 2;
    }
  }
  options.tz = cli.tz;
  options.time_field = cli.time_field;
  options.message_field = cli.message_field;
  options.again = cli.again;
  ProgressLine progress("importing " + cli.file);
  options.progress = [&](int64_t done, int64_t total) { progress.update(done, total); };

  auto result = logs::add_log(options);
  progress.finish();
  if (!result) {
    std::fprintf(stderr, "canopy: %s\n", result.error().message.c_str());
    return 1;
  }
  bool naive_times = result->format == logs::LogFormat::kLines || result->format == logs::LogFormat::kJsonl;
  std::printf("canopy: added %lld events from %s (%s%s%s) to %s\n", static_cast<long long>(result->events),
              cli.file.c_str(), logs::log_format_name(result->format),
              naive_times ? "; times without a zone read as " : "", naive_times ? result->zone.c_str() : "",
              cli.recording.c_str());
  if (result->outside_span > 0) {
    std::fprintf(stderr, "canopy: warning: %lld of them are outside the recording's time span; kept%s\n",
                 static_cast<long long>(result->outside_span),
                 result->outside_span == result->events
                     ? " (all of them: if the log was written in another time zone, add it again with --tz and --again)"
                     : "");
  }
  return 0;
}

}  // namespace canopy::cli
