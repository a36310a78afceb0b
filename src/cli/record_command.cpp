#include <sys/wait.h>

#include <cstdio>

#include "analyze/summary.h"
#include "cli/budget_options.h"
#include "cli/commands.h"
#include "cli/flag_values.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "record/recorder.h"
#include "report/summary_format.h"
#include "store/reader.h"

namespace canopy::cli {
namespace {

// The kernel's highest pid_max (PID_MAX_LIMIT, 2^22 on 64-bit): no PID is above it.
constexpr int64_t kPidMaxLimit = 4'194'304;
constexpr int64_t kIntervalMostMs = 3'600'000;

// The least page the kernel gives, and so the least memory a limit can mean: under it,
// memory.max and RLIMIT_AS both leave nothing to run in.
constexpr int64_t kLeastMemoryLimitBytes = 4096;

void add_limit_options(CLI::App& cmd, record::ResourceLimits& limits) {
  const char* group = "Resource limits (a cgroup where canopy can create one; see README)";
  take_size(cmd.add_option("--memory-limit", limits.memory_bytes, "Memory the whole tree may use (cgroup memory.max)"),
            kLeastMemoryLimitBytes)
      ->group(group);
  take_size(cmd.add_option("--swap-limit", limits.swap_bytes, "Swap the whole tree may use besides its memory"), 0)
      ->group(group);
  take_number(cmd.add_option("--cpu-limit", limits.cpu_percent,
                             "CPU the whole tree may use, in percent of one CPU (cgroup cpu.max)"),
              0.1, 100'000.0)
      ->group(group);
  cmd.add_option("--cpus", limits.cpus, "CPUs the command may run on, e.g. 0,2-3 (affinity)")->group(group);
  take_integer(cmd.add_option("--nice", limits.nice, "Scheduling niceness of the command, -20 to 19"), -20, 19)
      ->group(group);
  take_duration(cmd.add_option("--cpu-time", limits.cpu_time_ms, "CPU time the tree may use in all, e.g. 30s"), 1)
      ->group(group);
  take_integer(cmd.add_option("--max-processes", limits.max_processes, "Processes and threads the tree may have at once"),
               1)
      ->group(group);
  take_duration(cmd.add_option("--timeout", limits.timeout_ms,
                               "Wall time, e.g. 10m; then SIGTERM to the whole tree, SIGKILL after the grace"),
                1)
      ->group(group);
  // 0s: SIGKILL right after SIGTERM, for a tree that need not clean up.
  take_duration(cmd.add_option("--kill-grace", limits.kill_grace_ms,
                               "Time between SIGTERM and SIGKILL when stopping the tree (default 5s)"),
                0)
      ->group(group);
}

void print_command_status(int wait_status) {
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0) {
    print_error("command exited with status " + std::to_string(WEXITSTATUS(wait_status)));
  } else if (WIFSIGNALED(wait_status)) {
    int signal = WTERMSIG(wait_status);
    print_error("command killed by signal " + std::to_string(signal) + " (" + signal_name(signal) + ")" +
                (WCOREDUMP(wait_status) ? ", core dumped" : ""));
  }
}

void print_summary(const std::string& path) {
  // The recorder has just written and closed this file, so it skips the up-front check
  // of every page that a file from elsewhere gets: `canopy report` of a 54 MB recording
  // spent 43% of its instructions there. Here they would be spent while the user waits
  // for the prompt. Damage would still surface, from the read that meets it.
  auto reader = store::Reader::open(path, store::Reader::Verify::kWhileReading);
  if (!reader) {
    print_error(reader.error().message);
    return;
  }
  auto summary = analyze::summarize(*reader, 5, /*with_growth=*/true);
  if (!summary) {
    print_error(summary.error().message);
    return;
  }
  std::fputs(report::summary_text(*summary, path).c_str(), stderr);
}

CLI::App* add_record_flags(CLI::App& app, record::RecordOptions& options, BudgetFlags& budgets) {
  CLI::App* cmd = app.add_subcommand(
      "record", "Run a command (canopy record -- CMD ARGS) or attach to one (--pid PID) and record its whole tree");
  take_integer(cmd->add_option("--pid", options.attach_pid, "Attach to a running process and its descendants"), 1,
               kPidMaxLimit);
  take_integer(cmd->add_option("-i,--interval", options.interval_ms,
                               "Sampling interval in ms (default 100; env CANOPY_INTERVAL or ONLOOKER_POLL_INTERVAL)"),
               1, kIntervalMostMs);
  cmd->add_option("-o,--output", options.output, "Recording file (default canopy-YYYYMMDD-HHMMSS-PID.canopy)");
  cmd->add_flag("-f,--force", options.force, "Replace an existing recording file");
  cmd->add_flag("-q,--quiet", options.quiet, "Print no summary and no exit status line");
  cmd->add_flag("--pss", options.pss, "Also record PSS and USS (smaps_rollup; costly, so once a second by default)");
  take_integer(cmd->add_option("--pss-interval", options.pss_interval_ms, "Minimum ms between PSS reads of one process"),
               1, kIntervalMostMs);
  cmd->add_flag("--capture-output", options.capture_output,
                "Store every line the command writes to stdout and stderr as an event (both still reach the terminal)");
  cmd->add_flag("!--no-process-events", options.process_events,
                "Poll only: no kernel process events or taskstats exit records (for comparison, or where they cost too much)");
  cmd->add_flag("!--no-cgroup", options.cgroup,
                "Do not run the command in a cgroup of its own (no exact tree figures; limits per process)");
  add_limit_options(*cmd, options.limits);
  add_budget_options(*cmd, budgets);
  cmd->add_option("command", options.command, "The command to run and its arguments");
  // Everything from the command's name on belongs to the command, options included,
  // as with `time`: `canopy record make -j8` works without `--`.
  cmd->positionals_at_end();
  return cmd;
}

int run_record(const record::RecordOptions& options, const BudgetFlags& budget_flags) {
  if (options.attach_pid && !options.command.empty()) {
    print_error("record takes either --pid PID or a command, not both");
    return record::kExitRecorderFailed;
  }
  if (!options.attach_pid && options.command.empty()) {
    print_error("record needs a command (canopy record -- COMMAND ARGS) or --pid PID");
    return record::kExitRecorderFailed;
  }
  if (options.attach_pid && options.capture_output) {
    print_error("--capture-output needs a command to run: a process we attach to already has its output");
    return record::kExitRecorderFailed;
  }
  auto budgets = parse_budgets(budget_flags);
  if (!budgets) {
    print_error(budgets.error().message);
    return record::kExitRecorderFailed;
  }
  const record::Warn warn = [](std::string_view message) { print_error(message); };
  record::RecordOutcome outcome = record::record(options, warn);
  if (outcome.failure) {
    print_error(outcome.failure->message);
  }
  if (outcome.command_wait_status && !options.quiet) {
    print_command_status(*outcome.command_wait_status);
  }
  const std::string& recording = outcome.complete_recording;
  if (!recording.empty() && !options.quiet) {
    print_summary(recording);
  }
  const int status = outcome.exit_status;
  if (budgets->empty() || recording.empty()) {
    return status;
  }
  // Judged on the finished recording, as `canopy report --max-peak` would judge it.
  auto verdicts = check_and_print_budgets(recording, *budgets);
  if (!verdicts) {
    print_error(verdicts.error().message);
    return status == 0 ? record::kExitRecorderFailed : status;
  }
  // The command's own failure (or a limit's, or a timeout) says more than a budget.
  return status == 0 && any_over(*verdicts) ? record::kExitOverBudget : status;
}

class RecordCommand final : public Subcommand {
 public:
  CLI::App* add_to(CLI::App& app) override {
    interval_ = record::interval_from_environment();
    options_.interval_ms = interval_.interval_ms;
    return command_ = add_record_flags(app, options_, budgets_);
  }
  int run() override {
    // A bad CANOPY_INTERVAL matters only when no --interval overrides it.
    if (!interval_.error.empty() && command_->count("--interval") == 0) {
      print_error(interval_.error);
      return record::kExitRecorderFailed;
    }
    return run_record(options_, budgets_);
  }

 private:
  record::RecordOptions options_;
  BudgetFlags budgets_;
  record::IntervalDefault interval_{};
  CLI::App* command_ = nullptr;
};

}  // namespace

std::unique_ptr<Subcommand> make_record_command() { return std::make_unique<RecordCommand>(); }

}  // namespace canopy::cli
