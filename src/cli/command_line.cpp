// canopy's command line: every subcommand's flags, their help and the checks on their
// values. The one file of cli/ besides main.cpp and flag_values.cpp that sees CLI11,
// whose header alone costs each file that includes it seconds of build; the
// subcommands themselves (*_command.cpp) take the parsed options.
#include <CLI/CLI.hpp>

#include "cli/budget_options.h"
#include "cli/commands.h"
#include "cli/flag_values.h"
#include "common/text.h"
#include "common/units.h"
#include "export/csv.h"
#include "export/cutelooker_log.h"
#include "export/heap_collapsed.h"
#include "logs/log_importer.h"

namespace canopy::cli {
namespace {

// The least page the kernel gives, and so the least memory a limit can mean: under it,
// memory.max and RLIMIT_AS both leave nothing to run in.
constexpr int64_t kLeastMemoryLimitBytes = 4096;

void add_limit_options(CLI::App& cmd, record::ResourceLimits& limits) {
  const char* group = "Resource limits (a cgroup where canopy can create one; see docs/limits-and-budgets.md)";
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

// One value per flag, the flag repeated for more: `--max-peak 2G make -j8` must leave
// `make` to the command, `--kind log REC` the recording to the command.
CLI::Option* one_value_per_use(CLI::Option* option) {
  return option->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

}  // namespace

void add_budget_options(CLI::App& cmd, BudgetFlags& flags) {
  const char* group = "Budgets (for CI: exit 123 when over, the command's own failure first)";
  one_value_per_use(cmd.add_option(
                        "--max-peak", flags.max_peak,
                        "Peak memory of the whole tree (2G), or of each process of a command (cc1plus=1G); repeatable"))
      ->group(group);
  one_value_per_use(cmd.add_option(
                        "--max-cpu", flags.max_cpu,
                        "CPU time of the whole tree (10m), or of each process of a command (cc1plus=30s); repeatable"))
      ->group(group);
}

namespace {

// --heap is a flag that may carry a value (--heap=64K), never an option that takes
// the next word: `canopy record --heap make` must run make.
void add_heap_options(CLI::App& cmd, RecordCliOptions& cli) {
  record::RecordOptions& options = cli.record;
  const char* group = "Heap profile (allocation stacks of every process of the tree)";
  cmd.add_flag("--heap{512K}", cli.heap_flag,
               "Profile the heap of every dynamically linked process: one sample per RATE bytes allocated on "
               "average (--heap=RATE, default 512K; 64K for a leak hunt; off loads the profiler with sampling off)")
      ->each([&options](const std::string& text) {
        if (text == "off") {
          options.heap_rate_bytes = 0;
          return;
        }
        auto bytes = parse_size_bytes(text);
        if (!bytes || *bytes < 1) {
          throw FlagValueError("--heap '" + text + "': " +
                               (bytes ? "must be at least 1 byte" : "not a sampling rate such as 512K or 64K, or off"));
        }
        options.heap_rate_bytes = *bytes;
      })
      ->group(group);
  take_duration(cmd.add_option("--heap-interval", options.heap_interval_ms,
                               "Time between the heap snapshots of a process (default 2s; also at each new peak and "
                               "at exit)"),
                100)
      ->group(group);
}

// --cpu-profile likewise carries its value after '=' only.
void add_cpu_profile_option(CLI::App& cmd, RecordCliOptions& cli) {
  record::RecordOptions& options = cli.record;
  cmd.add_flag("--cpu-profile{99}", cli.cpu_profile_flag,
               "Sample the CPU stacks of every thread of the tree, HZ times a second of CPU each uses "
               "(--cpu-profile=HZ, default 99; perf_event_open; see canopy profile)")
      ->each([&options](const std::string& text) {
        auto hz = parse_int<int64_t>(text);
        if (!hz || *hz < 1 || *hz > record::kMostCpuProfileHz) {
          throw FlagValueError("--cpu-profile '" + text + "': not a sampling frequency from 1 to " +
                               std::to_string(record::kMostCpuProfileHz) + " Hz");
        }
        options.cpu_profile_hz = *hz;
      })
      ->group("CPU profile (where the tree's CPU time goes)");
}

void add_metrics_options(CLI::App& cmd, RecordCliOptions& cli) {
  const char* group = "Live (the browser, Prometheus, the terminal)";
  take_listen_address(cmd.add_option("--metrics", cli.metrics,
                                     "Serve the tree's figures at http://ADDR:PORT/metrics for Prometheus while "
                                     "recording (ADDR:PORT, :PORT or PORT; loopback unless an address is given)"))
      ->group(group);
  take_integer(cmd.add_option("--metrics-top", cli.metrics_top,
                              "Commands with series of their own on /metrics, by resident memory, and with --heap "
                              "processes, by heap in use; the rest are one group (default 10)"),
               1, 1000)
      ->group(group);
  take_listen_address(cmd.add_flag("--serve{127.0.0.1:0}", cli.serve,
                                   "Serve the viewer while recording, following the recording live "
                                   "(--serve=ADDR:PORT, :PORT or PORT; default loopback, any free port); it keeps "
                                   "serving the finished recording until Ctrl-C"),
                      /*value_optional=*/true)
      ->group(group);
  cmd.add_flag("--live", cli.live,
               "Redraw a table of the tree's biggest processes at the bottom of the terminal once a second "
               "while recording (nothing when stderr is not a terminal)")
      ->group(group);
}

}  // namespace

CLI::App* add_record_command(CLI::App& app, RecordCliOptions& cli) {
  // A bad CANOPY_INTERVAL is an error only when no --interval overrides it: run_record
  // sees both.
  cli.interval_default = record::interval_from_environment();
  record::RecordOptions& options = cli.record;
  options.interval_ms = cli.interval_default.interval_ms;
  CLI::App* cmd = app.add_subcommand(
      "record", "Run a command (canopy record -- CMD ARGS) or attach to one (--pid PID) and record its whole tree");
  take_integer(cmd->add_option("--pid", options.attach_pid, "Attach to a running process and its descendants"), 1,
               kPidMaxLimit);
  take_duration(cmd->add_option("--duration", options.attach_duration_ms,
                                "With --pid: stop recording after this long, e.g. 60s, and leave the process running"),
                1);
  CLI::Option* interval = take_interval(
      cmd->add_option("-i,--interval", options.interval_ms,
                      "Sampling interval, such as 250ms or 1s; a bare number is milliseconds (default 100ms; env "
                      "CANOPY_INTERVAL or ONLOOKER_POLL_INTERVAL)"),
      1, record::kIntervalMostMs);
  take_path(
      cmd->add_option("-o,--output", options.output, "Recording file (default canopy-YYYYMMDD-HHMMSS-PID.canopy)"));
  cmd->add_flag("-f,--force", options.force, "Replace an existing recording file");
  cmd->add_flag("-q,--quiet", options.quiet, "Print no summary and no exit status line");
  cmd->add_flag("--pss", options.pss, "Also record PSS and USS (smaps_rollup; costly, so once a second by default)");
  take_interval(cmd->add_option("--pss-interval", options.pss_interval_ms,
                                "Least time between PSS reads of one process, such as 1s; a bare number is "
                                "milliseconds (default 1s)"),
                1, record::kIntervalMostMs);
  cmd->add_flag("--capture-output", options.capture_output,
                "Store every line the command writes to stdout and stderr as an event (both still reach the terminal)");
  // Callbacks, not CLI11's "!--no-..." flags, whose help shows a "{false}" default.
  cmd->add_flag_callback(
      "--no-process-events", [&options] { options.process_events = false; },
      "Poll only: no kernel process events or taskstats exit records (for comparison, or where they cost too much)");
  cmd->add_flag_callback(
      "--no-cgroup", [&options] { options.cgroup = false; },
      "Do not run the command in a cgroup of its own (no exact tree figures; limits per process)");
  add_heap_options(*cmd, cli);
  add_cpu_profile_option(*cmd, cli);
  add_limit_options(*cmd, options.limits);
  add_budget_options(*cmd, cli.budgets);
  add_metrics_options(*cmd, cli);
  cmd->add_option("command", options.command, "The command to run and its arguments");
  // Everything from the command's name on belongs to the command, options included,
  // as with `time`: `canopy record make -j8` works without `--`.
  cmd->positionals_at_end();
  cmd->parse_complete_callback([&cli, interval] { cli.interval_given = interval->count() > 0; });
  return cmd;
}

CLI::App* add_report_command(CLI::App& app, ReportOptions& options) {
  CLI::App* cmd = app.add_subcommand("report", "Summarise a recording");
  cmd->add_option("recording", options.path, "The .canopy file")->required();
  CLI::Option* json = cmd->add_flag("--json", options.json, "Print the summary as JSON");
  cmd->add_flag("--growth", options.growth,
                "List every memory growth finding, one line per process (the summary groups them; --json has them all)")
      ->excludes(json);
  take_path(cmd->add_option("--html", options.html,
                            "Also write the viewer's page with the recording embedded, one file that opens offline"));
  cmd->add_flag("-f,--force", options.force, "Replace an existing --html file");
  add_budget_options(*cmd, options.budgets);
  return cmd;
}

CLI::App* add_view_command(CLI::App& app, ViewOptions& options) {
  CLI::App* cmd = app.add_subcommand("view", "Open a recording in the browser (serves it on 127.0.0.1)");
  cmd->add_option("recording", options.path, "The .canopy file")->required();
  cmd->add_flag("--open", options.open, "Also open the page in the default browser");
  take_ip_address(cmd->add_option("--listen", options.listen,
                                   "IPv4 or IPv6 address to listen on (default 127.0.0.1; another one makes the "
                                   "recording reachable from other machines)"));
  take_integer(cmd->add_option("--port", options.port, "Port (default: any free one)"), 0, 65535);
  return cmd;
}

CLI::App* add_log_command(CLI::App& app, LogAddCliOptions& options) {
  CLI::App* log = app.add_subcommand("log", "Link application logs to a recording's timeline");
  log->require_subcommand(1);
  CLI::App* add = log->add_subcommand("add", "Import a log file into a recording (one transaction: all or nothing)");
  add->add_option("recording", options.recording, "The .canopy file")->required();
  add->add_option("file", options.file, "The log file")->required();
  take_text(add->add_option("--format", options.format,
                            std::string("Log format: ") + logs::kLogFormatNames +
                                " (default: detected from the file)"));
  take_text(add->add_option("--tz", options.tz,
                            "Time zone of timestamps written without one, e.g. Europe/Berlin, UTC, +01:00 "
                            "(default: the zone of the recording's host)"));
  take_text(add->add_option("--time-field", options.time_field, "jsonl: the field holding the time"));
  take_text(add->add_option("--message-field", options.message_field, "jsonl: the field holding the message"));
  add->add_flag("--again", options.again,
                "Add the file even if the recording already holds a log with the same content "
                "(its events are then there twice)");
  return add;
}

CLI::App* add_mark_command(CLI::App& app, MarkOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "mark", "Put a marker on the timeline of the recording this runs inside (canopy record sets CANOPY_MARK)");
  cmd->add_option("text", options.words, "The marker's text")->required();
  return cmd;
}

CLI::App* add_export_command(CLI::App& app, ExportOptions& options) {
  CLI::App* cmd = app.add_subcommand("export", "Write a recording in another tool's format");
  cmd->add_option("recording", options.path, "The .canopy file")->required();
  cmd->add_option("--format", options.format, std::string("Output format: ") + kExportFormats)->required();
  take_path(cmd->add_option(
      "-o,--output", options.output,
      "Output file, written whole or not at all; a device or FIFO is written through (default and '-': stdout)"),
            /*dash_is_stdout=*/true);
  cmd->add_flag("-f,--force", options.force, "Replace an existing output file");
  cmd->add_flag("--long", options.long_csv,
                "csv: one row per process and sample with every column (default: one row per tick, one column per "
                "process)");
  take_text(cmd->add_option("--metric", options.metric,
                            std::string("csv (wide): the figure in each cell: ") + exporters::kWideCsvMetrics +
                                " (default rss_bytes); collapsed: the figure of each stack: " +
                                exporters::kHeapCollapsedMetrics + " (default " +
                                exporters::kHeapCollapsedDefaultMetric + ")"));
  take_text(one_value_per_use(cmd->add_option("--kind", options.kinds,
                                              "cutelooker-log: only events of this kind (" +
                                                  exporters::event_kinds_text() + "); repeatable")));
  auto* pid = take_integer(cmd->add_option("--pid", options.pid, "pprof, collapsed: only the profile of this PID"),
                           1, kPidMaxLimit);
  take_text(cmd->add_option("--command", options.command,
                            "pprof, collapsed: only the profile of processes of this name or executable file name, "
                            "merged"))
      ->excludes(pid);
  take_text(cmd->add_option("--at", options.at,
                            "pprof, collapsed: which snapshot of each process image: end or peak (default end: its "
                            "last; peak: its highest estimated heap)"));
  take_text(cmd->add_option(
      "--profile", options.profile,
      "pprof, collapsed: heap or cpu (default: the one the recording holds; cpu with --from or --to)"));
  take_duration(cmd->add_option("--from", options.from_ms,
                                "pprof, collapsed of the CPU profile: only samples from this time on (e.g. 30s)"),
                0);
  take_duration(cmd->add_option("--to", options.to_ms, "pprof, collapsed of the CPU profile: ... and before this time"),
                0);
  return cmd;
}

CLI::App* add_import_command(CLI::App& app, ImportOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "import", "Turn another tool's recording (Onlooker JSON, from Windows) into a canopy recording");
  cmd->add_option("file", options.file, "The Onlooker JSON file")->required();
  take_path(
      cmd->add_option("-o,--output", options.output, "Recording file (default: FILE with its extension made .canopy)"));
  cmd->add_flag("-f,--force", options.force, "Replace an existing recording file");
  take_integer(cmd->add_option("--cpus", options.cpus,
                               "Logical processors of the machine Onlooker ran on: its cpuUsage is a share of all of "
                               "them (default: CPU times as for 1 CPU)"),
               1, 65536);
  return cmd;
}

CLI::App* add_diff_command(CLI::App& app, DiffOptions& options) {
  CLI::App* cmd = app.add_subcommand("diff", "Compare two recordings process by process: what grew, what is new");
  cmd->add_option("A", options.path_a, "The earlier recording")->required();
  cmd->add_option("B", options.path_b, "The later recording")->required();
  cmd->add_flag("--json", options.json, "Print every pair and figure as JSON, in raw units");
  auto* top = take_integer(cmd->add_option("--top", options.top, "Rows per list (default 10)"), 1, 1'000'000);
  cmd->add_flag("--all", options.all, "Every row of every list")->excludes(top);
  return cmd;
}

CLI::App* add_profile_command(CLI::App& app, ProfileOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "profile", "Where the tree's CPU time went: top functions by self and total samples, from a recording made "
                 "with record --cpu-profile");
  cmd->add_option("recording", options.path, "The .canopy file")->required();
  auto* pid = take_integer(cmd->add_option("--pid", options.pid, "Only the samples of this PID"), 1, kPidMaxLimit);
  take_text(cmd->add_option("--command", options.command,
                            "Only the samples of processes of this name or executable file name"))
      ->excludes(pid);
  take_duration(cmd->add_option("--from", options.from_ms, "Only samples from this time on (from the recording's "
                                                           "start, e.g. 30s)"),
                0);
  take_duration(cmd->add_option("--to", options.to_ms, "... and before this time (default: the end)"), 0);
  auto* per_process =
      cmd->add_flag("--per-process", options.per_process, "One list per process (default: every process merged)");
  take_integer(cmd->add_option("--top", options.top, "Functions per list (default 15)"), 1, 1'000'000);
  take_integer(cmd->add_option("--processes", options.processes,
                               "With --per-process, the processes listed, most samples first (default 10; --json "
                               "lists every one)"),
               1, 1'000'000)
      ->needs(per_process);
  cmd->add_flag("--json", options.json, "Print the lists as JSON, in sample counts");
  return cmd;
}

CLI::App* add_heap_command(CLI::App& app, HeapOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "heap",
      "Which code holds the heap of each process, from a recording made with record --heap (canopy heap "
      "RECORDING); or, while it records, a snapshot now or sampling on or off in one process (canopy heap "
      "dump|on|off PID)");
  cmd->add_option("recording", options.words, "The .canopy file; or dump, on or off, and a PID")
      ->required()
      ->expected(1, 2);
  take_integer(cmd->add_option("--pid", options.pid, "Only the process images of this PID"), 1, kPidMaxLimit);
  take_text(cmd->add_option("--command", options.command,
                            "Only the processes of this command (its name, as report shows it)"));
  take_duration(cmd->add_option("--from", options.from_ms,
                                "List the stacks that grew from this time on (from the recording's start, e.g. 30s)"),
                0);
  take_duration(cmd->add_option("--to", options.to_ms,
                                "... up to this time (default: the end); with --older-than, the moment to look at"),
                0);
  take_duration(cmd->add_option("--older-than", options.older_than_ms,
                                "List what was held by allocations older than this (e.g. 10s), like memleak -o"),
                0);
  take_integer(cmd->add_option("--top", options.top, "Stacks at each moment (default 5)"), 1, 1'000'000);
  take_integer(cmd->add_option("--frames", options.frames, "Frames of each stack (default 6)"), 1, 1'000);
  take_integer(cmd->add_option("--processes", options.processes,
                               "Process images listed: the highest heap first, or the most growth (--from, --to) or "
                               "old memory (--older-than) (default 10; --json lists every one)"),
               1, 1'000'000);
  cmd->add_flag("--json", options.json, "Print the images, moments and stacks as JSON, in raw units");
  return cmd;
}

}  // namespace canopy::cli
