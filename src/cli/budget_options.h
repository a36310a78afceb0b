// The budget flags of `canopy record` and `canopy report`: --max-peak and --max-cpu,
// for the whole tree (`2G`, `10m`) or per command (`cc1plus=1G`), repeatable.
#pragma once

#include <string>
#include <vector>

#include "analyze/budget.h"
#include "common/result.h"

namespace CLI {
class App;
}

namespace canopy::cli {

struct BudgetFlags {
  std::vector<std::string> max_peak;
  std::vector<std::string> max_cpu;
  bool any() const { return !max_peak.empty() || !max_cpu.empty(); }
};

// Defined with the other flags, in command_line.cpp.
void add_budget_options(CLI::App& cmd, BudgetFlags& flags);

// One line naming the flag and what is wrong with it, for a bad value.
Result<std::vector<analyze::Budget>> parse_budgets(const BudgetFlags& flags);

// Checks the recording, prints one line per budget on stderr ("canopy: over budget:
// ..."), and returns the verdicts.
Result<std::vector<analyze::BudgetVerdict>> check_and_print_budgets(const store::Reader& reader,
                                                                    const analyze::Summary& summary,
                                                                    const std::vector<analyze::Budget>& budgets);

// The same for a recording `canopy record` has just written.
Result<std::vector<analyze::BudgetVerdict>> check_and_print_budgets(const std::string& path,
                                                                    const std::vector<analyze::Budget>& budgets);

bool any_over(const std::vector<analyze::BudgetVerdict>& verdicts);

}  // namespace canopy::cli
