#include "analyze/diff.h"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>
#include <unordered_map>

#include "common/short_command.h"
#include "analyze/summary.h"

namespace canopy::analyze {
namespace {

// One recording, read once: its totals, and its processes with their keys.
struct Side {
  Summary summary;
  std::vector<store::ProcessRow> processes;  // figures filled in from samples if need be
  std::vector<std::string> keys;             // by index in `processes`
  bool heap_profiled = false;
};

// The names from the root down to each process, joined by "/": "sh/make/cc1plus". A
// process whose parent was not recorded (the root, an orphan adopted before canopy saw
// it) starts its own path. Iterative, since a chain of shells can be deep.
std::vector<std::string> tree_keys(const std::vector<store::ProcessRow>& processes) {
  std::unordered_map<int64_t, size_t> index_of;
  for (size_t i = 0; i < processes.size(); ++i) {
    index_of[processes[i].id] = i;
  }
  enum State : char { kNone, kWalking, kDone };
  std::vector<State> state(processes.size(), kNone);
  std::vector<std::string> keys(processes.size());
  std::vector<size_t> chain;
  for (size_t i = 0; i < processes.size(); ++i) {
    if (state[i] == kDone) {
      continue;
    }
    chain.assign(1, i);
    state[i] = kWalking;
    std::string prefix;
    for (size_t cur = i;;) {
      const auto& parent_id = processes[cur].parent_id;
      auto parent = parent_id ? index_of.find(*parent_id) : index_of.end();
      if (parent == index_of.end() || state[parent->second] == kWalking) {
        break;  // a root, or a parent link that loops (a damaged file): a root too
      }
      if (state[parent->second] == kDone) {
        prefix = keys[parent->second] + "/";
        break;
      }
      cur = parent->second;
      state[cur] = kWalking;
      chain.push_back(cur);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      keys[*it] = prefix + processes[*it].name;
      prefix = keys[*it] + "/";
      state[*it] = kDone;
    }
  }
  return keys;
}

Result<Side> read_side(const store::Reader& reader) {
  ASSIGN_OR_RETURN(auto summary, summarize(reader, 0));
  ASSIGN_OR_RETURN(auto processes, processes_with_figures(reader));
  ASSIGN_OR_RETURN(bool heap_profiled, reader.heap_profiled());
  Side side{std::move(summary), std::move(processes), {}, heap_profiled};
  side.keys = tree_keys(side.processes);
  return side;
}

DiffProcess diff_process(const store::ProcessRow& p, int64_t recording_start_ms) {
  ProcessPeak peak = process_peak(p, recording_start_ms);
  return {p.id, p.pid, p.cmdline, p.start_ms - recording_start_ms, peak.peak_rss_bytes, peak.cpu_ns};
}

// A side's processes grouped by key, each group in start order (ties in the order the
// recorder found them).
using Groups = std::map<std::string, std::vector<const store::ProcessRow*>>;

Groups group_by_key(const Side& side) {
  Groups groups;
  for (size_t i = 0; i < side.processes.size(); ++i) {
    groups[side.keys[i]].push_back(&side.processes[i]);
  }
  for (auto& [key, group] : groups) {
    std::stable_sort(group.begin(), group.end(), [](const store::ProcessRow* x, const store::ProcessRow* y) {
      return std::tie(x->start_ms, x->id) < std::tie(y->start_ms, y->id);
    });
  }
  return groups;
}

UnmatchedGroup unmatched_group(const std::string& key, const std::vector<const store::ProcessRow*>& rows,
                               int64_t recording_start_ms) {
  UnmatchedGroup group{key, 0, 0, {}};
  for (const auto* row : rows) {
    group.processes.push_back(diff_process(*row, recording_start_ms));
    group.max_peak_rss_bytes = std::max(group.max_peak_rss_bytes, group.processes.back().peak_rss_bytes);
    group.cpu_ns += group.processes.back().cpu_ns;
  }
  return group;
}

// A's process ids to their twins' in B, filled key by key: a parent's key is a prefix
// of its children's, so it is matched first.
using TwinIds = std::unordered_map<int64_t, int64_t>;

// Pairs each process of `a` that has no twin yet with the first process of `b` not yet
// taken whose identity is the same; an empty identity identifies none.
template <typename IdentityA, typename IdentityB>
void pair_alike(const std::vector<const store::ProcessRow*>& a, const std::vector<const store::ProcessRow*>& b,
                const IdentityA& identity_a, const IdentityB& identity_b, MatchedBy by,
                std::vector<const store::ProcessRow*>& twin_of, std::vector<MatchedBy>& how,
                std::vector<bool>& b_taken) {
  using Key = decltype(identity_b(*b[0]));
  std::map<Key, std::deque<size_t>> b_by_identity;
  for (size_t j = 0; j < b.size(); ++j) {
    if (Key key = identity_b(*b[j]); !b_taken[j] && !key.empty()) {
      b_by_identity[std::move(key)].push_back(j);
    }
  }
  for (size_t i = 0; i < a.size() && !b_by_identity.empty(); ++i) {
    if (twin_of[i]) {
      continue;
    }
    auto it = b_by_identity.find(identity_a(*a[i]));
    if (it != b_by_identity.end() && !it->second.empty()) {
      twin_of[i] = b[it->second.front()];
      b_taken[it->second.front()] = true;
      it->second.pop_front();
      how[i] = by;
    }
  }
}

// The matching rule, within one key (the same names from the root down):
//  1. processes with the same whole command line are twins, in start order: the k-th
//     `cc1plus ... foo.cpp` of A with the k-th of B, wherever the scheduler put them
//     among the others (make -j8 starts them in a different order on every run);
//  2. the rest with the same short command (short_command.h: a compiler's source file,
//     an assembler's or a linker's output, a script), children of twins first, then in
//     start order: the command lines of gcc's cc1 and as carry a temporary file name
//     that never matches exactly;
//  3. the rest that are children of twins, in start order: an `as` whose command line
//     was never read is still the one its `cc` ran;
//  4. the rest pair up in start order: the k-th remaining of A with the k-th remaining
//     of B (a worker started with different arguments is still the same worker);
//  5. what is left over is only in A or only in B.
// An empty command line (a process gone before it was read) never identifies one.
void match_key(const std::string& key, const std::vector<const store::ProcessRow*>& a,
               const std::vector<const store::ProcessRow*>& b, const Side& side_a, const Side& side_b,
               TwinIds& twin_ids, Diff& out) {
  int64_t start_a = side_a.summary.start_ms;
  int64_t start_b = side_b.summary.start_ms;
  std::vector<const store::ProcessRow*> twin_of(a.size(), nullptr);
  std::vector<bool> b_taken(b.size(), false);
  std::vector<MatchedBy> how(a.size(), MatchedBy::kStartOrder);
  auto cmdline = [](const store::ProcessRow& p) { return p.cmdline; };
  pair_alike(a, b, cmdline, cmdline, MatchedBy::kCommandLine, twin_of, how, b_taken);
  // A parent as B numbers it: an A process's parent's twin, a B process's own parent.
  auto parent_twin_in_a = [&](const store::ProcessRow& p) {
    auto twin = p.parent_id ? twin_ids.find(*p.parent_id) : twin_ids.end();
    return twin == twin_ids.end() ? std::string() : std::to_string(twin->second);
  };
  auto parent_in_b = [](const store::ProcessRow& p) { return p.parent_id ? std::to_string(*p.parent_id) : ""; };
  auto words = [](const store::ProcessRow& p) { return short_command(p.cmdline, p.name).value_or(""); };
  auto with_parent = [&](const auto& parent) {
    return [&](const store::ProcessRow& p) {
      std::string identity = words(p);
      return identity.empty() ? identity : parent(p) + "\n" + identity;
    };
  };
  pair_alike(a, b, with_parent(parent_twin_in_a), with_parent(parent_in_b), MatchedBy::kShortCommand, twin_of, how,
             b_taken);
  pair_alike(a, b, words, words, MatchedBy::kShortCommand, twin_of, how, b_taken);
  pair_alike(a, b, parent_twin_in_a, parent_in_b, MatchedBy::kParent, twin_of, how, b_taken);
  size_t next_b = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (twin_of[i]) {
      continue;
    }
    while (next_b < b.size() && b_taken[next_b]) {
      ++next_b;
    }
    if (next_b == b.size()) {
      break;
    }
    twin_of[i] = b[next_b];
    b_taken[next_b] = true;
  }

  std::vector<const store::ProcessRow*> only_a;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!twin_of[i]) {
      only_a.push_back(a[i]);
      continue;
    }
    twin_ids[a[i]->id] = twin_of[i]->id;
    ProcessPair pair{key, how[i], diff_process(*a[i], start_a), diff_process(*twin_of[i], start_b), {}, {}};
    pair.peak_rss_bytes = {pair.a.peak_rss_bytes, pair.b.peak_rss_bytes};
    pair.cpu_ns = {pair.a.cpu_ns, pair.b.cpu_ns};
    out.matched_by_cmdline += how[i] == MatchedBy::kCommandLine ? 1 : 0;
    out.matched_by_short_command += how[i] == MatchedBy::kShortCommand ? 1 : 0;
    out.matched_by_parent += how[i] == MatchedBy::kParent ? 1 : 0;
    out.pairs.push_back(std::move(pair));
  }
  std::vector<const store::ProcessRow*> only_b;
  for (size_t j = 0; j < b.size(); ++j) {
    if (!b_taken[j]) {
      only_b.push_back(b[j]);
    }
  }
  if (!only_a.empty()) {
    out.only_a.push_back(unmatched_group(key, only_a, start_a));
  }
  if (!only_b.empty()) {
    out.only_b.push_back(unmatched_group(key, only_b, start_b));
  }
}

// Memory and CPU rank apart: there is no exchange rate between a MiB and a second
// that is right for every job, so each has its own order and the other breaks ties.
// Key and start break the remaining ties, so the output is the same on every run.
void sort_pairs(Diff& d) {
  auto identity = [](const ProcessPair& p) { return std::tie(p.key, p.a.start_t_ms, p.a.process_id); };
  std::stable_sort(d.pairs.begin(), d.pairs.end(), [&](const ProcessPair& x, const ProcessPair& y) {
    if (x.peak_rss_bytes.delta() != y.peak_rss_bytes.delta()) {
      return x.peak_rss_bytes.delta() > y.peak_rss_bytes.delta();
    }
    if (x.cpu_ns.delta() != y.cpu_ns.delta()) {
      return x.cpu_ns.delta() > y.cpu_ns.delta();
    }
    return identity(x) < identity(y);
  });
  d.by_cpu_growth.resize(d.pairs.size());
  for (size_t i = 0; i < d.pairs.size(); ++i) {
    d.by_cpu_growth[i] = i;
  }
  // Stable on the memory order, which already breaks the ties as wanted.
  std::stable_sort(d.by_cpu_growth.begin(), d.by_cpu_growth.end(), [&](size_t x, size_t y) {
    return d.pairs[x].cpu_ns.delta() > d.pairs[y].cpu_ns.delta();
  });
  auto by_peak = [](const UnmatchedGroup& x, const UnmatchedGroup& y) {
    if (x.max_peak_rss_bytes != y.max_peak_rss_bytes) {
      return x.max_peak_rss_bytes > y.max_peak_rss_bytes;
    }
    if (x.processes.size() != y.processes.size()) {
      return x.processes.size() > y.processes.size();
    }
    return x.key < y.key;
  };
  std::sort(d.only_a.begin(), d.only_a.end(), by_peak);
  std::sort(d.only_b.begin(), d.only_b.end(), by_peak);
}

}  // namespace

std::optional<double> Change::relative() const {
  if (a == 0) {
    return b == 0 ? std::optional<double>(0.0) : std::nullopt;
  }
  return static_cast<double>(b - a) / static_cast<double>(a);
}

Result<Diff> diff(const store::Reader& reader_a, const store::Reader& reader_b) {
  auto a = read_side(reader_a);
  if (!a) {
    return Error{"recording A: " + a.error().message};
  }
  auto b = read_side(reader_b);
  if (!b) {
    return Error{"recording B: " + b.error().message};
  }
  const Summary& sa = a->summary;
  const Summary& sb = b->summary;
  Diff d;
  d.command_a = sa.command;
  d.command_b = sb.command;
  d.commands_differ = sa.command != sb.command;
  d.complete_a = sa.complete;
  d.complete_b = sb.complete;
  d.still_recording_a = sa.still_recording;
  d.still_recording_b = sb.still_recording;
  d.heap_profiled_a = a->heap_profiled;
  d.heap_profiled_b = b->heap_profiled;
  d.interval_ms_a = sa.interval_ms;
  d.interval_ms_b = sb.interval_ms;
  d.totals.wall_ms = {sa.wall_ms, sb.wall_ms};
  d.totals.cpu_ns = {sa.cpu_user_ns + sa.cpu_system_ns, sb.cpu_user_ns + sb.cpu_system_ns};
  d.totals.peak_tree_rss_bytes = {sa.peak_tree_rss_bytes, sb.peak_tree_rss_bytes};
  d.totals.peak_tree_at_least_a = sa.peak_tree_process.has_value();
  d.totals.peak_tree_at_least_b = sb.peak_tree_process.has_value();
  if (sa.cgroup_peak_bytes && sb.cgroup_peak_bytes) {
    d.totals.cgroup_peak_bytes = Change{*sa.cgroup_peak_bytes, *sb.cgroup_peak_bytes};
  }
  d.totals.processes = {sa.processes, sb.processes};

  Groups groups_a = group_by_key(*a);
  Groups groups_b = group_by_key(*b);
  static const std::vector<const store::ProcessRow*> kNone;
  TwinIds twin_ids;
  for (const auto& [key, group] : groups_a) {
    auto in_b = groups_b.find(key);
    match_key(key, group, in_b == groups_b.end() ? kNone : in_b->second, *a, *b, twin_ids, d);
  }
  for (const auto& [key, group] : groups_b) {
    if (!groups_a.contains(key)) {
      match_key(key, kNone, group, *a, *b, twin_ids, d);
    }
  }
  sort_pairs(d);
  return d;
}

}  // namespace canopy::analyze
