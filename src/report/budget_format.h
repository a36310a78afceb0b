// report/: budget verdicts for people (one line each) and scripts (JSON).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analyze/budget.h"

namespace canopy::report {

// "over budget: peak memory 366.2 MiB > --max-peak 200M (200.0 MiB) at +0.600 s, when
// canopy_workload (pid 4242) grew by 150.0 MiB", or "within budget: ...".
std::string budget_line(const analyze::BudgetVerdict& verdict);

nlohmann::json budgets_json(const std::vector<analyze::BudgetVerdict>& verdicts);

}  // namespace canopy::report
