#include <cstdio>

#include "cli/commands.h"
#include "cli/progress_line.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "logs/log_importer.h"

namespace canopy::cli {

int run_log_add_command(const LogAddCliOptions& cli) {
  logs::LogAddOptions options;
  options.recording = cli.recording;
  options.file = cli.file;
  if (!cli.format.empty()) {
    options.format = logs::log_format_from_name(cli.format);
    if (!options.format) {
      print_error("unknown log format '" + cli.format + "' (known: " + logs::kLogFormatNames + ")");
      return 2;
    }
  }
  options.tz = cli.tz;
  options.time_field = cli.time_field;
  options.message_field = cli.message_field;
  options.again = cli.again;
  if (options.format) {
    if (auto fits = logs::check_flags_fit_format(options, *options.format); !fits) {
      print_error(fits.error().message);  // a mistake in the command line, as the format's name would be
      return 2;
    }
  }
  ProgressLine progress("importing " + cli.file);
  options.progress = [&](int64_t done, int64_t total) { progress.update(done, total); };

  auto result = logs::add_log(options);
  progress.finish();
  if (!result) {
    print_error(result.error().message);
    return 1;
  }
  bool naive_times = result->format == logs::LogFormat::kLines || result->format == logs::LogFormat::kJsonl;
  print_line(stdout, "added " + count_of(result->events, "event", "events") +
                         " from " + cli.file + " (" +
                         logs::log_format_name(result->format) +
                         (naive_times ? "; times without a zone read as " + result->zone : "") + ") to " +
                         cli.recording);
  if (result->outside_span > 0) {
    const bool all = result->outside_span == result->events;
    const std::string which = result->events == 1          ? "it is"
                              : result->outside_span == 1 ? "1 of them is"
                                                          : std::to_string(result->outside_span) + " of them are";
    print_error("warning: " + which + " outside the recording's time span; kept" +
                (all ? std::string(result->events == 1 ? " (" : " (all of them: ") +
                           "if the log was written in another time zone, add it again with --tz and --again)"
                     : ""));
  }
  return 0;
}

}  // namespace canopy::cli
