// The subcommands: each adds its flags to the app and runs once parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "record/options.h"

namespace canopy::cli {

CLI::App* add_record_command(CLI::App& app, record::RecordOptions& options);
int run_record_command(record::RecordOptions& options);

struct ReportOptions {
  std::string path;
  bool json = false;
  std::string html;  // write the self-contained HTML report here
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
};
// Returns the `log add` subcommand (its parent `log` only groups).
CLI::App* add_log_command(CLI::App& app, LogAddCliOptions& options);
int run_log_add_command(const LogAddCliOptions& options);

struct ExportOptions {
  std::string path;
  std::string format;
  std::string output;
  std::vector<std::string> kinds;
};
CLI::App* add_export_command(CLI::App& app, ExportOptions& options);
int run_export_command(const ExportOptions& options);

struct MarkOptions {
  std::vector<std::string> words;
};
CLI::App* add_mark_command(CLI::App& app, MarkOptions& options);
int run_mark_command(const MarkOptions& options);

}  // namespace canopy::cli
