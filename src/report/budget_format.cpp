#include "report/budget_format.h"

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "report/summary_format.h"

namespace canopy::report {
namespace {

using analyze::Budget;

bool is_memory(const Budget& budget) { return budget.kind == Budget::Kind::kPeakMemory; }

std::string amount(const Budget& budget, int64_t value) {
  return is_memory(budget) ? format_bytes(value) : format_duration_ms(value / 1'000'000);
}

// The flag as written, and what it came to: "--max-peak 2G (2.0 GiB)".
std::string flag_text(const Budget& budget) { return budget.flag + " (" + amount(budget, budget.limit) + ")"; }

// "cc1plus src/json.cpp (pid 4242)": which of a build's cc1plus it was.
std::string process_text(const analyze::BudgetCulprit& c) {
  return process_title(c.name, c.cmdline) + " (pid " + std::to_string(c.pid) + ")";
}

}  // namespace

std::string budget_line(const analyze::BudgetVerdict& v) {
  const Budget& b = v.budget;
  const char* what = is_memory(b) ? "peak memory" : "CPU";
  if (!b.command.empty()) {
    if (v.processes_named == 0) {
      return "budget unused: no process named " + b.command + " ran (" + b.flag + ")";
    }
    std::string line = std::string(v.over ? "over budget: " : "within budget: ") + b.command + " " + what + " " +
                       amount(b, v.used) + (v.over ? " > " : " of ") + flag_text(b);
    if (v.culprit) {
      line += v.over ? ", by " : ", the highest ";
      line += process_text(*v.culprit);
    }
    if (v.over || v.processes_named > 1) {
      line += "; " + std::to_string(v.processes_over) + " of " + std::to_string(v.processes_named) + " " + b.command +
              " over";
    }
    return line;
  }
  std::string line = std::string(v.over ? "over budget: " : "within budget: ") + what + " " + amount(b, v.used) +
                     (v.over ? " > " : " of ") + flag_text(b);
  if (!v.over) {
    return line;
  }
  if (v.over_at_ms) {
    line += " at +" + format_duration_ms(*v.over_at_ms);
  }
  if (v.culprit && v.culprit->growth_bytes) {
    line += ", when " + process_text(*v.culprit) + " grew by " + format_bytes(*v.culprit->growth_bytes) + " (to " +
            format_bytes(v.culprit->value) + " at its peak)";
  } else if (v.culprit) {
    line += "; the most: " + process_text(*v.culprit) + " " + amount(b, v.culprit->value);
  }
  return line;
}

nlohmann::json budgets_json(const std::vector<analyze::BudgetVerdict>& verdicts) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& v : verdicts) {
    nlohmann::json culprit;
    if (v.culprit) {
      culprit = {{"pid", v.culprit->pid},
                 {"name", v.culprit->name},
                 {"cmdline", v.culprit->cmdline},
                 {"value", v.culprit->value}};
      if (v.culprit->growth_bytes) {
        culprit["growth_bytes"] = *v.culprit->growth_bytes;
      }
    }
    out.push_back({
        {"flag", v.budget.flag},
        {"kind", is_memory(v.budget) ? "peak_memory_bytes" : "cpu_ns"},
        {"command", v.budget.command.empty() ? nlohmann::json() : nlohmann::json(v.budget.command)},
        {"limit", v.budget.limit},
        {"used", v.used},
        {"over", v.over},
        {"over_at_ms", v.over_at_ms ? nlohmann::json(*v.over_at_ms) : nlohmann::json()},
        {"processes_named", v.budget.command.empty() ? nlohmann::json() : nlohmann::json(v.processes_named)},
        {"processes_over", v.budget.command.empty() ? nlohmann::json() : nlohmann::json(v.processes_over)},
        {"culprit", culprit},
    });
  }
  return out;
}

}  // namespace canopy::report
