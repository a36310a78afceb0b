// cli/: argument parsing and the subcommands. Thin: it checks what the user typed,
// turns it into options, and calls record/, store/, analyze/ and report/.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <initializer_list>
#include <string_view>

#include "cli/commands.h"
#include "cli/flag_values.h"
#include "common/terminal_text.h"
#include "record/options.h"
#include "store/sqlite.h"

namespace {

// The subcommand's name as typed ("log add"), or "" for canopy itself.
std::string command_name(const CLI::App* subcommand) {
  std::string name;
  for (const CLI::App* cmd = subcommand; cmd && cmd->get_parent(); cmd = cmd->get_parent()) {
    name = cmd->get_name() + (name.empty() ? "" : " " + name);
  }
  return name;
}

// `canopy record`'s own failures are 125, apart from any status of its command; the
// other commands' bad command lines are 2.
int usage_status(const std::string& name) { return name == "record" ? canopy::record::kExitRecorderFailed : 2; }

// One line, naming what was wrong: CLI11's default adds a second "Run with --help" line.
int usage_error(const CLI::ParseError& e, const CLI::App* subcommand) {
  std::string name = command_name(subcommand);
  canopy::print_error(std::string(e.what()) + " (see 'canopy " + name + (name.empty() ? "" : " ") + "--help')");
  return usage_status(name);
}

// The subcommand a command line names in its first word, or "" (`canopy --help`, a
// typo): then every subcommand is built, for the help and the error to list them. A
// subcommand missing from this list still works, built with all the others.
std::string_view named_subcommand(int argc, char** argv) {
  static constexpr std::string_view kNames[] = {"record", "report", "view",   "log",
                                                "mark",   "export", "import", "diff"};
  if (argc < 2) {
    return {};
  }
  for (std::string_view name : kNames) {
    if (name == argv[1]) {
      return name;
    }
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  canopy::store::configure_sqlite();
  CLI::App app{"canopy: a flight recorder for process trees"};
  app.set_version_flag("--version", CANOPY_VERSION);
  app.require_subcommand(1);

  // Only the subcommand the command line names is built. CLI11 builds every option of
  // every subcommand it is given, a fifth of what starting canopy costs (1.1 M of 5 M
  // user instructions for `canopy --version`); `canopy mark`, which an application may
  // call many times, need not build `record`'s options.
  const std::string_view named = named_subcommand(argc, argv);
  auto wanted = [&](std::string_view name) { return named.empty() || named == name; };

  canopy::record::RecordOptions record;
  canopy::record::IntervalDefault interval{};
  canopy::cli::BudgetFlags record_budgets;
  CLI::App* record_cmd = nullptr;
  if (wanted("record")) {
    interval = canopy::record::interval_from_environment();
    record.interval_ms = interval.interval_ms;
    record_cmd = canopy::cli::add_record_command(app, record, record_budgets);
  }

  canopy::cli::ReportOptions report;
  CLI::App* report_cmd = wanted("report") ? canopy::cli::add_report_command(app, report) : nullptr;

  canopy::cli::ViewOptions view;
  CLI::App* view_cmd = wanted("view") ? canopy::cli::add_view_command(app, view) : nullptr;

  canopy::cli::LogAddCliOptions log_add;
  CLI::App* log_add_cmd = wanted("log") ? canopy::cli::add_log_command(app, log_add) : nullptr;

  canopy::cli::MarkOptions mark;
  CLI::App* mark_cmd = wanted("mark") ? canopy::cli::add_mark_command(app, mark) : nullptr;

  canopy::cli::ExportOptions export_options;
  CLI::App* export_cmd = wanted("export") ? canopy::cli::add_export_command(app, export_options) : nullptr;

  canopy::cli::ImportOptions import_options;
  CLI::App* import_cmd = wanted("import") ? canopy::cli::add_import_command(app, import_options) : nullptr;

  canopy::cli::DiffOptions diff;
  CLI::App* diff_cmd = wanted("diff") ? canopy::cli::add_diff_command(app, diff) : nullptr;

  auto parsed = [](const CLI::App* cmd) { return cmd != nullptr && cmd->parsed(); };
  // The subcommand whose flags were being read when parsing failed.
  auto innermost_parsed = [&]() -> const CLI::App* {
    const CLI::App* failed = nullptr;
    const CLI::App* log_cmd = log_add_cmd ? log_add_cmd->get_parent() : nullptr;
    for (const CLI::App* cmd : std::initializer_list<const CLI::App*>{record_cmd, report_cmd, view_cmd, mark_cmd, export_cmd, import_cmd, diff_cmd, log_cmd, log_add_cmd}) {
      if (parsed(cmd)) {
        failed = cmd;  // the innermost parsed one, as the list goes outward in
      }
    }
    return failed;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const canopy::cli::FlagValueError& e) {
    // Its line names the flag, the value and what it takes: --help would add nothing.
    canopy::print_error(e.what());
    return usage_status(command_name(innermost_parsed()));
  } catch (const CLI::ParseError& e) {
    return usage_error(e, innermost_parsed());
  }

  if (parsed(record_cmd)) {
    if (!interval.error.empty() && record_cmd->count("--interval") == 0) {
      canopy::print_error(interval.error);
      return canopy::record::kExitRecorderFailed;
    }
    return canopy::cli::run_record_command(record, record_budgets);
  }
  if (parsed(view_cmd)) {
    return canopy::cli::run_view_command(view);
  }
  if (parsed(log_add_cmd)) {
    return canopy::cli::run_log_add_command(log_add);
  }
  if (parsed(mark_cmd)) {
    return canopy::cli::run_mark_command(mark);
  }
  if (parsed(export_cmd)) {
    return canopy::cli::run_export_command(export_options);
  }
  if (parsed(import_cmd)) {
    return canopy::cli::run_import_command(import_options);
  }
  if (parsed(diff_cmd)) {
    return canopy::cli::run_diff_command(diff);
  }
  return canopy::cli::run_report_command(report);
}
