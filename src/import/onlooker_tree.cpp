#include "import/onlooker_tree.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

namespace canopy::importers {
namespace {

// Whether `next` belongs to another process than `previous`, the element's entry
// before it. Onlooker samples every process of the tree at every round while it
// lives, so a round missed in between means the first had ended; and a process's peak
// working set only grows, so a lower one is a new process's. (pageFaultCount only
// grows too, but it is a 32-bit counter on Windows: it wraps.)
bool starts_another_instance(const OnlookerEntry& previous, const OnlookerEntry& next,
                             const std::vector<int64_t>& rounds) {
  auto after_previous = std::upper_bound(rounds.begin(), rounds.end(), previous.t_ms);
  bool missed_a_round = after_previous != rounds.end() && *after_previous < next.t_ms;
  bool peak_went_down = previous.peak_working_set_bytes && next.peak_working_set_bytes &&
                        *next.peak_working_set_bytes < *previous.peak_working_set_bytes;
  return missed_a_round || peak_went_down;
}

std::vector<OnlookerProcess> split_instances(std::vector<OnlookerProcess> elements,
                                             const std::vector<int64_t>& rounds) {
  std::vector<OnlookerProcess> instances;
  instances.reserve(elements.size());
  for (OnlookerProcess& element : elements) {
    size_t begin = 0;
    for (size_t k = 1; k <= element.entries.size(); ++k) {
      if (k < element.entries.size() && !starts_another_instance(element.entries[k - 1], element.entries[k], rounds)) {
        continue;
      }
      if (begin == 0 && k == element.entries.size()) {
        instances.push_back(std::move(element));  // one process, as almost always
        break;
      }
      OnlookerProcess& instance = instances.emplace_back();
      instance.pid = element.pid;
      instance.ppid = element.ppid;
      instance.name = element.name;
      instance.entries.assign(element.entries.begin() + static_cast<ptrdiff_t>(begin),
                              element.entries.begin() + static_cast<ptrdiff_t>(k));
      begin = k;
    }
  }
  return instances;
}

int64_t first_ms(const OnlookerProcess& p) { return p.entries.front().t_ms; }

// Windows does not reparent orphans, so a PPID may name a process long gone, or a
// later one that reused the PID. As Onlooker itself decides: the parent is the
// latest process with that PID that started no later than the child.
std::vector<std::optional<size_t>> find_parents(const std::vector<OnlookerProcess>& processes) {
  std::map<int64_t, std::vector<size_t>> by_pid;  // in order of start
  for (size_t i = 0; i < processes.size(); ++i) {
    by_pid[processes[i].pid].push_back(i);
  }
  std::vector<std::optional<size_t>> parents(processes.size());
  for (size_t i = 0; i < processes.size(); ++i) {
    auto it = by_pid.find(processes[i].ppid);
    if (it == by_pid.end()) {
      continue;
    }
    for (size_t candidate : it->second) {
      if (candidate != i && first_ms(processes[candidate]) <= first_ms(processes[i])) {
        parents[i] = candidate;
      }
    }
  }
  return parents;
}

// Processes that started at the same round can name each other as parents (only a
// file can say so, but a looped tree would hang whatever walks it). A loop is made of
// such processes only, since a parent starts no later than its child; the one with
// the lowest (pid, ppid, name) loses its parent, whatever the order of the file.
void break_loops(const std::vector<OnlookerProcess>& processes, std::vector<std::optional<size_t>>& parents) {
  auto identity = [&](size_t i) {
    return std::tie(processes[i].pid, processes[i].ppid, processes[i].name);
  };
  for (size_t i = 0; i < processes.size(); ++i) {
    std::vector<size_t> path = {i};
    for (auto up = parents[i]; up && first_ms(processes[*up]) == first_ms(processes[i]); up = parents[*up]) {
      auto seen = std::find(path.begin(), path.end(), *up);
      if (seen != path.end()) {
        size_t root = *std::min_element(seen, path.end(), [&](size_t a, size_t b) { return identity(a) < identity(b); });
        parents[root].reset();
        break;
      }
      path.push_back(*up);
    }
  }
}

// How many ancestors started at the same round: among processes that started
// together, a parent has fewer than its children.
std::vector<size_t> same_round_depths(const std::vector<OnlookerProcess>& processes,
                                      const std::vector<std::optional<size_t>>& parents) {
  std::vector<size_t> depths(processes.size(), 0);
  for (size_t i = 0; i < processes.size(); ++i) {
    for (auto up = parents[i]; up && first_ms(processes[*up]) == first_ms(processes[i]); up = parents[*up]) {
      ++depths[i];
    }
  }
  return depths;
}

}  // namespace

OnlookerTree build_onlooker_tree(std::vector<OnlookerProcess> elements, const std::vector<int64_t>& rounds) {
  std::vector<OnlookerProcess> processes = split_instances(std::move(elements), rounds);
  std::stable_sort(processes.begin(), processes.end(),
                   [](const OnlookerProcess& a, const OnlookerProcess& b) { return first_ms(a) < first_ms(b); });
  std::vector<std::optional<size_t>> parents = find_parents(processes);
  break_loops(processes, parents);

  // By first sample, then parents first; the file's order among equals.
  std::vector<size_t> depths = same_round_depths(processes, parents);
  std::vector<size_t> order(processes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::pair(first_ms(processes[a]), depths[a]) < std::pair(first_ms(processes[b]), depths[b]);
  });
  std::vector<size_t> position(processes.size());
  for (size_t k = 0; k < order.size(); ++k) {
    position[order[k]] = k;
  }
  OnlookerTree tree;
  tree.processes.reserve(processes.size());
  tree.parents.reserve(processes.size());
  for (size_t i : order) {
    tree.processes.push_back(std::move(processes[i]));
    tree.parents.push_back(parents[i] ? std::optional(position[*parents[i]]) : std::nullopt);
  }
  return tree;
}

}  // namespace canopy::importers
