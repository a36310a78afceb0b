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
};
CLI::App* add_report_command(CLI::App& app, ReportOptions& options);
int run_report_command(const ReportOptions& options);

}  // namespace canopy::cli
