#include "analyze/budget.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace canopy::analyze {
namespace {

BudgetCulprit culprit_of(const ProcessPeak& peak, Budget::Kind kind) {
  return {peak.process_id, peak.pid, peak.name, {},
          kind == Budget::Kind::kPeakMemory ? peak.peak_rss_bytes : peak.cpu_ns, std::nullopt};
}

// Each process of the named command on its own: the verdict names the highest one.
BudgetVerdict check_per_command(const Budget& budget, const std::vector<ProcessPeak>& peaks) {
  BudgetVerdict verdict;
  verdict.budget = budget;
  const ProcessPeak* highest = nullptr;
  auto value = [&](const ProcessPeak& p) {
    return budget.kind == Budget::Kind::kPeakMemory ? p.peak_rss_bytes : p.cpu_ns;
  };
  for (const auto& peak : peaks) {
    if (peak.name != budget.command) {
      continue;
    }
    ++verdict.processes_named;
    verdict.processes_over += value(peak) > budget.limit ? 1 : 0;
    if (!highest || value(peak) > value(*highest)) {
      highest = &peak;
    }
  }
  if (highest) {
    verdict.used = value(*highest);
    verdict.over = verdict.used > budget.limit;
    verdict.culprit = culprit_of(*highest, budget.kind);
  }
  return verdict;
}

// The first tick whose figure went over, and the process that grew most at that tick:
// the one that pushed the tree over (a new process counts all it had).
Status find_tree_peak_pusher(const store::Reader& reader, int64_t over_t_ms, BudgetCulprit& culprit) {
  std::unordered_map<int64_t, int64_t> rss_by_process;
  int64_t best_growth = -1;
  static constexpr std::array kMemory{store::kRssAnonBytes, store::kRssFileBytes, store::kRssShmemBytes};
  auto visited = reader.for_each_sample(
      [&](int64_t t_ms, int64_t process_id, const store::SampleValues& v) {
        if (t_ms > over_t_ms) {
          return;
        }
        int64_t& last = rss_by_process[process_id];
        int64_t rss = v.rss_bytes().value_or(0);
        int64_t growth = rss - last;
        last = rss;
        if (t_ms == over_t_ms && growth > best_growth) {
          best_growth = growth;
          culprit.process_id = process_id;
          culprit.growth_bytes = growth;
        }
      },
      kMemory);
  if (!visited) {
    return visited.error();
  }
  return Ok{};
}

Result<BudgetVerdict> check_tree(const store::Reader& reader, const Summary& summary, const Budget& budget,
                                 const std::vector<ProcessPeak>& peaks, const std::vector<store::TickRow>& ticks) {
  BudgetVerdict verdict;
  verdict.budget = budget;
  bool memory = budget.kind == Budget::Kind::kPeakMemory;
  verdict.used = memory ? summary.peak_tree_rss_bytes : summary.cpu_user_ns + summary.cpu_system_ns;
  verdict.over = verdict.used > budget.limit;
  if (!verdict.over) {
    return verdict;
  }
  auto crossing = std::find_if(ticks.begin(), ticks.end(), [&](const store::TickRow& tick) {
    return (memory ? tick.rss_bytes : tick.cpu_ns) > budget.limit;
  });
  if (crossing != ticks.end()) {
    verdict.over_at_ms = crossing->t_ms - summary.start_ms;
  }
  if (memory && crossing != ticks.end()) {
    BudgetCulprit pusher;
    RETURN_IF_ERROR(find_tree_peak_pusher(reader, crossing->t_ms, pusher));
    auto it = std::find_if(peaks.begin(), peaks.end(), [&](const ProcessPeak& p) { return p.process_id == pusher.process_id; });
    if (it != peaks.end()) {
      pusher.pid = it->pid;
      pusher.name = it->name;
      pusher.value = it->peak_rss_bytes;
      verdict.culprit = pusher;
    }
    return verdict;
  }
  // CPU accumulates over the whole run: the process that used the most of it is the
  // one to look at first.
  auto largest = std::max_element(peaks.begin(), peaks.end(), [&](const ProcessPeak& a, const ProcessPeak& b) {
    return memory ? a.peak_rss_bytes < b.peak_rss_bytes : a.cpu_ns < b.cpu_ns;
  });
  if (largest != peaks.end()) {
    verdict.culprit = culprit_of(*largest, budget.kind);
  }
  return verdict;
}

}  // namespace

Result<std::vector<BudgetVerdict>> check_budgets(const store::Reader& reader, const Summary& summary,
                                                 const std::vector<Budget>& budgets) {
  std::vector<BudgetVerdict> verdicts;
  if (budgets.empty()) {
    return verdicts;
  }
  ASSIGN_OR_RETURN(auto processes, processes_with_figures(reader));
  std::vector<ProcessPeak> peaks;
  for (const auto& p : processes) {
    peaks.push_back(process_peak(p, summary.start_ms));
  }
  ASSIGN_OR_RETURN(auto ticks, reader.ticks());
  for (const auto& budget : budgets) {
    if (!budget.command.empty()) {
      verdicts.push_back(check_per_command(budget, peaks));
      continue;
    }
    ASSIGN_OR_RETURN(auto verdict, check_tree(reader, summary, budget, peaks, ticks));
    verdicts.push_back(std::move(verdict));
  }
  for (BudgetVerdict& verdict : verdicts) {
    if (verdict.culprit) {
      verdict.culprit->cmdline = cmdline_of(processes, verdict.culprit->process_id);
    }
  }
  return verdicts;
}

}  // namespace canopy::analyze
