#include <cstdio>

#include "analyze/summary.h"
#include "cli/commands.h"
#include "report/summary_format.h"
#include "store/reader.h"

namespace canopy::cli {

CLI::App* add_report_command(CLI::App& app, ReportOptions& options) {
  CLI::App* cmd = app.add_subcommand("report", "Summarise a recording");
  cmd->add_option("recording", options.path, "The .canopy file")->required();
  cmd->add_flag("--json", options.json, "Print the summary as JSON");
  return cmd;
}

int run_report_command(const ReportOptions& options) {
  auto reader = store::Reader::open(options.path);
  if (!reader) {
    std::fprintf(stderr, "canopy: %s\n", reader.error().message.c_str());
    return 1;
  }
  auto summary = analyze::summarize(*reader);
  if (!summary) {
    std::fprintf(stderr, "canopy: %s\n", summary.error().message.c_str());
    return 1;
  }
  std::string text = options.json ? report::summary_json(*summary, options.path)
                                  : report::summary_text(*summary, options.path);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace canopy::cli
