#include <cstdio>
#include <optional>

#include "analyze/summary.h"
#include "cli/commands.h"
#include "cli/heap_leak_names.h"
#include "common/json_dump.h"
#include "common/output_file.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "report/budget_format.h"
#include "report/growth_format.h"
#include "report/heap_leaks_format.h"
#include "report/summary_format.h"
#include "store/reader.h"
#include "web/web_module.h"

namespace canopy::cli {
namespace {

int write_html_report(const store::Reader& reader, const ReportOptions& options, OutputFile& file) {
  auto data = web::load_view_data(reader);
  if (!data) {
    print_error(data.error().message);
    return 1;
  }
  auto module = web::load_web_module();
  if (!module) {
    print_error(module.error().message);
    return 1;
  }
  auto html = (*module)->render_html_report(*data);
  if (html) {
    file.write(*html);
  }
  Status written = html ? file.commit() : Status(html.error());
  if (!written) {
    print_error(written.error().message);
    return 1;
  }
  print_error("wrote " + options.html + " (" + format_bytes(static_cast<int64_t>(html->size())) + ")");
  return 0;
}

}  // namespace

int run_report_command(const ReportOptions& options) {
  auto budgets = parse_budgets(options.budgets);
  if (!budgets) {
    print_error(budgets.error().message);
    return 2;
  }
  // Before anything is printed: a refused --html is said alone.
  std::optional<OutputFile> html_file;
  if (!options.html.empty()) {
    auto file = OutputFile::create(options.html, {options.force, "", {options.path}});
    if (!file) {
      print_error(file.error().message);
      return 1;
    }
    html_file.emplace(std::move(*file));
  }
  auto reader = store::Reader::open(options.path);
  if (!reader) {
    print_error(reader.error().message);
    return 1;
  }
  SymbolizedHeapStacks heap_stacks;
  auto summary = analyze::summarize(*reader, 5, /*with_growth=*/true, &heap_stacks);
  if (!summary) {
    print_error(summary.error().message);
    return 1;
  }
  auto verdicts = check_and_print_budgets(*reader, *summary, *budgets);
  if (!verdicts) {
    print_error(verdicts.error().message);
    return 1;
  }
  if (options.json) {
    nlohmann::json json = report::summary_json_object(*summary, options.path);
    if (!budgets->empty()) {
      json["budgets"] = report::budgets_json(*verdicts);
    }
    std::fputs((json_dump(json, 2) + "\n").c_str(), stdout);
  } else if (options.growth && summary->heap_leaks) {
    std::fputs(report::heap_leaks_list_text(*summary->heap_leaks, summary->start_ms).c_str(), stdout);
  } else if (options.growth) {
    std::fputs(report::growth_list_text(*summary->growth).c_str(), stdout);
  } else {
    std::fputs(report::summary_text(*summary, options.path).c_str(), stdout);
  }
  int status = html_file ? write_html_report(*reader, options, *html_file) : 0;
  return status == 0 && any_over(*verdicts) ? record::kExitOverBudget : status;
}

}  // namespace canopy::cli
