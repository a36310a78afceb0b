#include <cstdio>
#include <optional>

#include "analyze/summary.h"
#include "cli/commands.h"
#include "common/output_file.h"
#include "common/text.h"
#include "report/budget_format.h"
#include "report/growth_format.h"
#include "report/summary_format.h"
#include "store/reader.h"
#include "web/web_module.h"

namespace canopy::cli {
namespace {

int write_html_report(const store::Reader& reader, const ReportOptions& options, OutputFile& file) {
  auto data = web::load_view_data(reader);
  if (!data) {
    std::fprintf(stderr, "canopy: %s\n", data.error().message.c_str());
    return 1;
  }
  auto module = web::load_web_module();
  if (!module) {
    std::fprintf(stderr, "canopy: %s\n", module.error().message.c_str());
    return 1;
  }
  auto html = (*module)->render_html_report(*data);
  if (html) {
    file.write(*html);
  }
  Status written = html ? file.commit() : Status(html.error());
  if (!written) {
    std::fprintf(stderr, "canopy: %s\n", written.error().message.c_str());
    return 1;
  }
  std::fprintf(stderr, "canopy: wrote %s (%s)\n", options.html.c_str(), format_bytes(static_cast<int64_t>(html->size())).c_str());
  return 0;
}

}  // namespace

CLI::App* add_report_command(CLI::App& app, ReportOptions& options) {
  CLI::App* cmd = app.add_subcommand("report", "Summarise a recording");
  cmd->add_option("recording", options.path, "The .canopy file")->required();
  CLI::Option* json = cmd->add_flag("--json", options.json, "Print the summary as JSON");
  cmd->add_flag("--growth", options.growth,
                "List every memory growth finding, one line per process (the summary groups them; --json has them all)")
      ->excludes(json);
  cmd->add_option("--html", options.html,
                  "Also write the viewer's page with the recording embedded, one file that opens offline");
  cmd->add_flag("-f,--force", options.force, "Replace an existing --html file");
  add_budget_options(*cmd, options.budgets);
  return cmd;
}

int run_report_command(const ReportOptions& options) {
  auto budgets = parse_budgets(options.budgets);
  if (!budgets) {
    std::fprintf(stderr, "canopy: %s\n", budgets.error().message.c_str());
    return 2;
  }
  // Before anything is printed: a refused --html is said alone.
  std::optional<OutputFile> html_file;
  if (!options.html.empty()) {
    auto file = OutputFile::create(options.html, {options.force, "", {options.path}});
    if (!file) {
      std::fprintf(stderr, "canopy: %s\n", file.error().message.c_str());
      return 1;
    }
    html_file.emplace(std::move(*file));
  }
  auto reader = store::Reader::open(options.path);
  if (!reader) {
    std::fprintf(stderr, "canopy: %s\n", reader.error().message.c_str());
    return 1;
  }
  auto summary = analyze::summarize(*reader, 5, /*with_growth=*/true);
  if (!summary) {
    std::fprintf(stderr, "canopy: %s\n", summary.error().message.c_str());
    return 1;
  }
  auto verdicts = check_and_print_budgets(*reader, *summary, *budgets);
  if (!verdicts) {
    std::fprintf(stderr, "canopy: %s\n", verdicts.error().message.c_str());
    return 1;
  }
  if (options.json) {
    nlohmann::json json = report::summary_json_object(*summary, options.path);
    if (!budgets->empty()) {
      json["budgets"] = report::budgets_json(*verdicts);
    }
    std::fputs((json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
  } else if (options.growth) {
    std::fputs(report::growth_list_text(*summary->growth).c_str(), stdout);
  } else {
    std::fputs(report::summary_text(*summary, options.path).c_str(), stdout);
  }
  int status = html_file ? write_html_report(*reader, options, *html_file) : 0;
  return status == 0 && any_over(*verdicts) ? record::kExitOverBudget : status;
}

}  // namespace canopy::cli
