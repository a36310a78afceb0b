#include <sys/wait.h>

#include <chrono>
#include <cstdio>

#include "analyze/summary.h"
#include "cli/budget_options.h"
#include "cli/commands.h"
#include "cli/heap_leak_names.h"
#include "cli/metrics_serving.h"
#include "cli/terminal_live_view.h"
#include "cli/view_serving.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "record/recorder.h"
#include "report/summary_format.h"
#include "store/reader.h"

namespace canopy::cli {
namespace {

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
  SymbolizedHeapStacks heap_stacks;
  auto summary = analyze::summarize(*reader, 5, /*with_growth=*/true, &heap_stacks);
  if (!summary) {
    print_error(summary.error().message);
    return;
  }
  std::fputs(report::summary_text(*summary, path).c_str(), stderr);
}

// The exit status with the budgets judged on the finished recording, as `canopy report
// --max-peak` would judge it.
int judge_budgets(int status, const std::string& recording, const std::vector<analyze::Budget>& budgets) {
  if (budgets.empty() || recording.empty()) {
    return status;
  }
  auto verdicts = check_and_print_budgets(recording, budgets);
  if (!verdicts) {
    print_error(verdicts.error().message);
    return status == 0 ? record::kExitRecorderFailed : status;
  }
  // The command's own failure (or a limit's, or a timeout) says more than a budget.
  return status == 0 && any_over(*verdicts) ? record::kExitOverBudget : status;
}

}  // namespace

int run_record_command(const RecordCliOptions& cli) {
  if (!cli.interval_default.error.empty() && !cli.interval_given) {
    print_error(cli.interval_default.error);
    return record::kExitRecorderFailed;
  }
  const record::RecordOptions& options = cli.record;
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
  if (options.attach_pid && options.heap_rate_bytes) {
    print_error("--heap needs a command to run: the profiler is loaded as a process starts, not into a running one");
    return record::kExitRecorderFailed;
  }
  auto budgets = parse_budgets(cli.budgets);
  if (!budgets) {
    print_error(budgets.error().message);
    return record::kExitRecorderFailed;
  }
  const record::Warn warn = [](std::string_view message) { print_error(message); };
  std::unique_ptr<MetricsServing> metrics;
  record::RecordOptions recording_options = options;
  if (!cli.metrics.empty()) {
    auto started = MetricsServing::start(cli.metrics, cli.metrics_top);
    if (!started) {
      print_error(started.error().message);
      return record::kExitRecorderFailed;
    }
    metrics = std::move(*started);
    recording_options.live_figures.push_back(&metrics->feed());
  }
  std::unique_ptr<ViewServing> serving;
  if (!cli.serve.empty()) {
    auto started = ViewServing::start(cli.serve, options);
    if (!started) {
      print_error(started.error().message);
      return record::kExitRecorderFailed;
    }
    serving = std::move(*started);
    recording_options.live_figures.push_back(serving.get());
  }
  std::unique_ptr<TerminalLiveView> live;
  if (cli.live) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    live = TerminalLiveView::start(std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
    if (live) {
      recording_options.live_figures.push_back(live.get());
    }
  }
  record::RecordOutcome outcome = record::record(recording_options, warn);
  live.reset();     // the table erased before the summary
  metrics.reset();  // the tree has ended: nothing more to scrape
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
  const int status = judge_budgets(outcome.exit_status, recording, *budgets);
  if (serving) {
    serving->serve_until_stopped(!recording.empty());  // the status is the same after
  }
  return status;
}

}  // namespace canopy::cli
