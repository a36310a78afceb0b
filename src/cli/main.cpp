// cli/: argument parsing and the subcommands. Thin: it checks what the user typed,
// turns it into options, and calls record/, store/, analyze/ and report/.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/commands.h"
#include "record/options.h"
#include "store/sqlite.h"

namespace {

// One line, naming what was wrong: CLI11's default adds a second "Run with --help" line.
int usage_error(const CLI::ParseError& e, const CLI::App* subcommand) {
  std::string name;
  for (const CLI::App* cmd = subcommand; cmd && cmd->get_parent(); cmd = cmd->get_parent()) {
    name = cmd->get_name() + (name.empty() ? "" : " " + name);  // "log add"
  }
  std::fprintf(stderr, "canopy: %s (see 'canopy %s%s--help')\n", e.what(), name.c_str(), name.empty() ? "" : " ");
  return name == "record" ? canopy::record::kExitRecorderFailed : 2;
}

}  // namespace

int main(int argc, char** argv) {
  canopy::store::configure_sqlite();
  CLI::App app{"canopy: a flight recorder for process trees"};
  app.set_version_flag("--version", CANOPY_VERSION);
  app.require_subcommand(1);

  canopy::record::RecordOptions record;
  auto interval = canopy::record::interval_from_environment();
  record.interval_ms = interval.interval_ms;
  canopy::cli::BudgetFlags record_budgets;
  CLI::App* record_cmd = canopy::cli::add_record_command(app, record, record_budgets);

  canopy::cli::ReportOptions report;
  CLI::App* report_cmd = canopy::cli::add_report_command(app, report);

  canopy::cli::ViewOptions view;
  CLI::App* view_cmd = canopy::cli::add_view_command(app, view);

  canopy::cli::LogAddCliOptions log_add;
  CLI::App* log_add_cmd = canopy::cli::add_log_command(app, log_add);

  canopy::cli::MarkOptions mark;
  CLI::App* mark_cmd = canopy::cli::add_mark_command(app, mark);

  canopy::cli::ExportOptions export_options;
  CLI::App* export_cmd = canopy::cli::add_export_command(app, export_options);

  canopy::cli::ImportOptions import_options;
  CLI::App* import_cmd = canopy::cli::add_import_command(app, import_options);

  canopy::cli::DiffOptions diff;
  CLI::App* diff_cmd = canopy::cli::add_diff_command(app, diff);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const CLI::App* failed = nullptr;
    for (const CLI::App* cmd : {record_cmd, report_cmd, view_cmd, mark_cmd, export_cmd, import_cmd, diff_cmd, log_add_cmd->get_parent(), log_add_cmd}) {
      if (cmd->parsed()) {
        failed = cmd;  // the innermost parsed one, as the list goes outward in
      }
    }
    return usage_error(e, failed);
  }

  if (record_cmd->parsed()) {
    if (!interval.error.empty() && record_cmd->count("--interval") == 0) {
      std::fprintf(stderr, "canopy: %s\n", interval.error.c_str());
      return canopy::record::kExitRecorderFailed;
    }
    return canopy::cli::run_record_command(record, record_budgets);
  }
  if (view_cmd->parsed()) {
    return canopy::cli::run_view_command(view);
  }
  if (log_add_cmd->parsed()) {
    return canopy::cli::run_log_add_command(log_add);
  }
  if (mark_cmd->parsed()) {
    return canopy::cli::run_mark_command(mark);
  }
  if (export_cmd->parsed()) {
    return canopy::cli::run_export_command(export_options);
  }
  if (import_cmd->parsed()) {
    return canopy::cli::run_import_command(import_options);
  }
  if (diff_cmd->parsed()) {
    return canopy::cli::run_diff_command(diff);
  }
  return canopy::cli::run_report_command(report);
}
