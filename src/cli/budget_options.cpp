#include "cli/budget_options.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "analyze/summary.h"
#include "common/units.h"
#include "common/terminal_text.h"
#include "report/budget_format.h"
#include "store/reader.h"

namespace canopy::cli {
namespace {

// "2G" or "cc1plus=1G": the value goes through the same unit parsing as the limits.
Result<analyze::Budget> parse_budget(const char* flag, analyze::Budget::Kind kind, const std::string& text) {
  analyze::Budget budget;
  budget.kind = kind;
  budget.flag = std::string(flag) + " " + text;
  std::string value = text;
  if (auto eq = text.rfind('='); eq != std::string::npos) {
    budget.command = text.substr(0, eq);
    value = text.substr(eq + 1);
    if (budget.command.empty()) {
      return Error{std::string(flag) + " '" + text + "': no command name before '='"};
    }
  }
  bool memory = kind == analyze::Budget::Kind::kPeakMemory;
  auto number = memory ? parse_size_bytes(value) : parse_duration_ms(value);
  std::string refused = std::string(flag) + " '" + text + "': '" + value + "' ";
  if (!number) {
    return Error{refused + "is " + number.error().message};
  }
  if (*number < 1) {
    return Error{refused + "must be at least " + (memory ? size_text(1) : duration_text(1))};
  }
  // A CPU budget is compared in nanoseconds: 292 years at most.
  if (!memory && *number > std::numeric_limits<int64_t>::max() / 1'000'000) {
    return Error{refused + "is too large"};
  }
  budget.limit = memory ? *number : *number * 1'000'000;  // durations parse to ms
  return budget;
}

}  // namespace

Result<std::vector<analyze::Budget>> parse_budgets(const BudgetFlags& flags) {
  std::vector<analyze::Budget> budgets;
  for (const auto& text : flags.max_peak) {
    ASSIGN_OR_RETURN(auto budget, parse_budget("--max-peak", analyze::Budget::Kind::kPeakMemory, text));
    budgets.push_back(budget);
  }
  for (const auto& text : flags.max_cpu) {
    ASSIGN_OR_RETURN(auto budget, parse_budget("--max-cpu", analyze::Budget::Kind::kCpuTime, text));
    budgets.push_back(budget);
  }
  return budgets;
}

Result<std::vector<analyze::BudgetVerdict>> check_and_print_budgets(const store::Reader& reader,
                                                                    const analyze::Summary& summary,
                                                                    const std::vector<analyze::Budget>& budgets) {
  ASSIGN_OR_RETURN(auto verdicts, analyze::check_budgets(reader, summary, budgets));
  for (const auto& verdict : verdicts) {
    print_error(report::budget_line(verdict));
  }
  return verdicts;
}

Result<std::vector<analyze::BudgetVerdict>> check_and_print_budgets(const std::string& path,
                                                                    const std::vector<analyze::Budget>& budgets) {
  // canopy record has just written and checkpointed this file, and summarized it:
  // integrity_check (a read of every page) would only repeat that.
  ASSIGN_OR_RETURN(auto reader, store::Reader::open(path, store::Reader::Verify::kWhileReading));
  ASSIGN_OR_RETURN(auto summary, analyze::summarize(reader));
  return check_and_print_budgets(reader, summary, budgets);
}

bool any_over(const std::vector<analyze::BudgetVerdict>& verdicts) {
  return std::any_of(verdicts.begin(), verdicts.end(), [](const auto& v) { return v.over; });
}

}  // namespace canopy::cli
