// The subcommands: each adds its flags to the app and runs once parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

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

}  // namespace canopy::cli
