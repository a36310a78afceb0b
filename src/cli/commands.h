// The subcommands: each adds its flags to the app and runs once parsed. main.cpp holds
// the table of them (kSubcommands).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli/budget_options.h"
#include "record/options.h"

// Only command_line.cpp, main.cpp and flag_values.cpp include CLI11, which is costly
// to build; the add_*_command functions below are defined in command_line.cpp.
namespace CLI {
class App;
}

namespace canopy::cli {

class Subcommand {
 public:
  virtual ~Subcommand() = default;
  // Adds the subcommand and its flags to `app`. Returns the one that runs: `log add`
  // for `log`, which only groups.
  virtual CLI::App* add_to(CLI::App& app) = 0;
  // Once the command line chose it and parsed: canopy's exit status.
  virtual int run() = 0;
};

// A subcommand that is its options, a function that adds their flags and one that runs.
template <typename Options, CLI::App* (*add)(CLI::App&, Options&), int (*run_with)(const Options&)>
class SubcommandOf final : public Subcommand {
 public:
  CLI::App* add_to(CLI::App& app) override { return add(app, options_); }
  int run() override { return run_with(options_); }

 private:
  Options options_;
};

struct RecordCliOptions {
  record::RecordOptions record;
  BudgetFlags budgets;
  // From CANOPY_INTERVAL, which matters (and is an error if bad) only when no
  // --interval overrides it.
  record::IntervalDefault interval_default{};
  bool interval_given = false;
  std::string heap_flag;  // --heap's value as given, parsed into record.heap_rate_bytes
  std::string cpu_profile_flag;  // --cpu-profile's, parsed into record.cpu_profile_hz
  std::string metrics;           // --metrics ADDR:PORT, checked as it is read; empty: none
  int64_t metrics_top = 10;      // --metrics-top (web::kDefaultMetricsTopCommands)
  bool live = false;             // --live: the tree's table on the terminal while it runs
  std::string serve;             // --serve[=ADDR:PORT], checked as it is read; empty: none
};
CLI::App* add_record_command(CLI::App& app, RecordCliOptions& options);
int run_record_command(const RecordCliOptions& options);

struct ReportOptions {
  std::string path;
  bool json = false;
  bool growth = false;  // every memory growth finding instead of the summary
  std::string html;  // write the self-contained HTML report here
  bool force = false;  // replace an existing --html file
  BudgetFlags budgets;
};
CLI::App* add_report_command(CLI::App& app, ReportOptions& options);
int run_report_command(const ReportOptions& options);

struct ViewOptions {
  std::string path;
  bool open = false;
  std::string listen = "127.0.0.1";
  int port = 0;
};
CLI::App* add_view_command(CLI::App& app, ViewOptions& options);
int run_view_command(const ViewOptions& options);

struct LogAddCliOptions {
  std::string recording;
  std::string file;
  std::string format;
  std::string tz;
  std::string time_field;
  std::string message_field;
  bool again = false;
};
// Returns the `log add` subcommand (its parent `log` only groups).
CLI::App* add_log_command(CLI::App& app, LogAddCliOptions& options);
int run_log_add_command(const LogAddCliOptions& options);

inline constexpr const char* kExportFormats = "onlooker, csv, chrome, jsonl, cutelooker-log, pprof, collapsed";

struct ExportOptions {
  std::string path;
  std::string format;
  std::string output;
  bool force = false;  // replace an existing output file
  std::vector<std::string> kinds;
  bool long_csv = false;  // csv: one row per process and sample
  std::string metric;     // csv (wide): the figure in each cell; collapsed: of each stack; "": the format's default
  // pprof and collapsed (the heap profile): which process images, at which moment.
  int64_t pid = 0;  // 0: every one
  std::string command;
  std::string at;  // "end" or "peak"; "": end
  // pprof and collapsed: "heap", "cpu", or "": the one the recording holds (cpu when
  // --from or --to is given, heap when --at is).
  std::string profile;
  int64_t from_ms = -1;  // the CPU profile's range, from the recording's start; -1: not given
  int64_t to_ms = -1;
};
CLI::App* add_export_command(CLI::App& app, ExportOptions& options);
int run_export_command(const ExportOptions& options);

struct ImportOptions {
  std::string file;
  std::string output;
  bool force = false;
  int64_t cpus = 0;  // 0: not given
};
CLI::App* add_import_command(CLI::App& app, ImportOptions& options);
int run_import_command(const ImportOptions& options);

struct MarkOptions {
  std::vector<std::string> words;
};
CLI::App* add_mark_command(CLI::App& app, MarkOptions& options);
int run_mark_command(const MarkOptions& options);

struct DiffOptions {
  std::string path_a;
  std::string path_b;
  bool json = false;
  size_t top = 10;  // rows per list
  bool all = false;
};
CLI::App* add_diff_command(CLI::App& app, DiffOptions& options);
int run_diff_command(const DiffOptions& options);

struct HeapOptions {
  // RECORDING, or a command and a PID: dump, on or off.
  std::vector<std::string> words;
  std::string path;
  int64_t pid = 0;    // 0: every process image
  std::string command;  // empty: every command; else only processes of this name
  // Offsets from the recording's start; -1: not given. --from/--to list growth between
  // them; --older-than lists what was held longer than it (at --to, else at the end).
  int64_t from_ms = -1;
  int64_t to_ms = -1;
  int64_t older_than_ms = -1;
  // Absent: not given (the defaults below), so that dump, on and off can refuse them.
  std::optional<size_t> top;        // stacks per moment
  std::optional<size_t> frames;     // frames per stack
  std::optional<size_t> processes;  // images that sampled, in the text; the JSON has every one
  bool json = false;
};
inline constexpr size_t kHeapTopDefault = 5;
inline constexpr size_t kHeapFramesDefault = 6;
inline constexpr size_t kHeapProcessesDefault = 10;
CLI::App* add_heap_command(CLI::App& app, HeapOptions& options);
int run_heap_command(const HeapOptions& options);

struct ProfileOptions {
  std::string path;
  int64_t pid = 0;      // 0: every process
  std::string command;  // empty: every command
  int64_t from_ms = -1;  // offsets from the recording's start; -1: not given
  int64_t to_ms = -1;
  bool per_process = false;
  size_t top = 15;        // functions per list
  size_t processes = 10;  // lists with --per-process, in the text; the JSON has every one
  bool json = false;
};
CLI::App* add_profile_command(CLI::App& app, ProfileOptions& options);
int run_profile_command(const ProfileOptions& options);

}  // namespace canopy::cli
