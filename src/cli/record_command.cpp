#include <cstdio>

#include "cli/commands.h"

namespace canopy::cli {

CLI::App* add_record_command(CLI::App& app, record::RecordOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "record", "Run a command (canopy record -- CMD ARGS) or attach to one (--pid PID) and record its whole tree");
  cmd->add_option("--pid", options.attach_pid, "Attach to a running process and its descendants")
      ->check(CLI::PositiveNumber);
  cmd->add_option("-i,--interval", options.interval_ms,
                  "Sampling interval in ms (default 100; env CANOPY_INTERVAL or ONLOOKER_POLL_INTERVAL)")
      ->check(CLI::Range(int64_t{1}, int64_t{3'600'000}));
  cmd->add_option("-o,--output", options.output, "Recording file (default canopy-YYYYMMDD-HHMMSS-PID.canopy)");
  cmd->add_flag("-f,--force", options.force, "Replace an existing recording file");
  cmd->add_flag("-q,--quiet", options.quiet, "Print no summary and no exit status line");
  cmd->add_flag("--pss", options.pss, "Also record PSS and USS (smaps_rollup; costly, so once a second by default)");
  cmd->add_option("--pss-interval", options.pss_interval_ms, "Minimum ms between PSS reads of one process")
      ->check(CLI::Range(int64_t{1}, int64_t{3'600'000}));
  cmd->add_flag("--capture-output", options.capture_output,
                "Store every line the command writes to stdout and stderr as an event (both still reach the terminal)");
  cmd->add_flag("!--no-process-events", options.process_events,
                "Poll only: no kernel process events or taskstats exit records (for comparison, or where they cost too much)");
  cmd->add_option("command", options.command, "The command to run and its arguments");
  // Everything from the command's name on belongs to the command, options included,
  // as with `time`: `canopy record make -j8` works without `--`.
  cmd->positionals_at_end();
  return cmd;
}

int run_record_command(record::RecordOptions& options) {
  if (options.attach_pid && !options.command.empty()) {
    std::fprintf(stderr, "canopy: record takes either --pid PID or a command, not both\n");
    return record::kExitRecorderFailed;
  }
  if (!options.attach_pid && options.command.empty()) {
    std::fprintf(stderr, "canopy: record needs a command (canopy record -- COMMAND ARGS) or --pid PID\n");
    return record::kExitRecorderFailed;
  }
  if (options.attach_pid && options.capture_output) {
    std::fprintf(stderr, "canopy: --capture-output needs a command to run: a process we attach to already has its output\n");
    return record::kExitRecorderFailed;
  }
  return record::run_record(options);
}

}  // namespace canopy::cli
