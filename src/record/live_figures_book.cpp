#include "record/live_figures_book.h"

#include <algorithm>

namespace canopy::record {

void LiveFiguresBook::close(const ProcessBook& process) {
  Spent& spent = ended_[process.command];
  spent.user_ns += process.user_ns - process.user_base_ns;
  spent.system_ns += process.system_ns - process.system_base_ns;
}

std::shared_ptr<live::LiveFigures> LiveFiguresBook::build(int64_t t_ms, const TreeSampler& sampler,
                                                    const LimitWatch* limits, const HeapInUseTable* heap) {
  ++round_;
  sampler.live_processes(live_);
  auto figures = std::make_shared<live::LiveFigures>();
  figures->t_ms = t_ms;
  figures->heap_profiling = heap != nullptr;
  std::unordered_map<std::string, live::LiveCommandFigures> commands;
  for (const LiveProcess& p : live_) {
    auto [it, first_sight] = processes_.try_emplace(p.process_id);
    ProcessBook& book = it->second;
    // Its CPU since the previous tick, as a share of one core.
    double cpu_percent = 0;
    if (!first_sight && last_t_ms_ && t_ms > *last_t_ms_) {
      int64_t used_ns = std::max<int64_t>(0, p.cpu_user_ns + p.cpu_system_ns - book.user_ns - book.system_ns);
      cpu_percent = static_cast<double>(used_ns) / static_cast<double>((t_ms - *last_t_ms_) * 10'000);
    }
    if (!first_sight && book.command != *p.name) {
      close(book);  // exec'd: what it used so far stays with what it ran
      book.user_base_ns = book.user_ns;
      book.system_base_ns = book.system_ns;
    }
    book.command = *p.name;
    // The sampler's split of a process's CPU into user and system can shift a little
    // between reads (it follows the tick counts' ratio); each part is held at its
    // highest so that neither counter steps back.
    book.user_ns = std::max(book.user_ns, p.cpu_user_ns);
    book.system_ns = std::max(book.system_ns, p.cpu_system_ns);
    book.seen_round = round_;

    live::LiveCommandFigures& c = commands[book.command];
    c.rss_bytes += p.rss_bytes;
    c.anon_bytes += p.anon_bytes;
    c.swap_bytes += p.swap_bytes;
    c.processes += 1;
    c.threads += p.threads;
    c.cpu_user_ns += book.user_ns - book.user_base_ns;
    c.cpu_system_ns += book.system_ns - book.system_base_ns;

    figures->each_process.push_back({p.pid, book.command, p.rss_bytes, p.threads, cpu_percent,
                                     heap ? heap->in_use_bytes(p.process_id) : std::nullopt});
    figures->rss_bytes += p.rss_bytes;
    figures->anon_bytes += p.anon_bytes;
    figures->swap_bytes += p.swap_bytes;
    figures->processes += 1;
    figures->threads += p.threads;
  }
  // The processes not seen this round have ended: their CPU as last seen stays with
  // their command. (What one used after its last tick is in the tree's total only.)
  std::erase_if(processes_, [&](const auto& entry) {
    if (entry.second.seen_round == round_) {
      return false;
    }
    close(entry.second);
    return true;
  });
  for (const auto& [command, spent] : ended_) {
    live::LiveCommandFigures& c = commands[command];
    c.cpu_user_ns += spent.user_ns;
    c.cpu_system_ns += spent.system_ns;
  }
  if (limits) {
    const CgroupReading& counters = limits->counters();
    figures->oom_kills = counters.oom_kills;
    figures->memory_limit_hits = counters.memory_limit_hits;
    figures->pids_limit_hits = counters.pids_limit_hits;
    for (const auto& [command, kills] : limits->oom_kills_by_command()) {
      commands[command].oom_kills = kills;
    }
  }
  // The tick's total takes a process's final CPU from its exit record, which can be a
  // little below what its last sample read: held at its highest, a counter.
  tree_cpu_ns_ = std::max(tree_cpu_ns_, sampler.last_tick_cpu_ns());
  figures->cpu_ns = tree_cpu_ns_;
  figures->processes_started = sampler.process_count();
  if (figures->rss_bytes > peak_rss_bytes_) {
    peak_rss_bytes_ = figures->rss_bytes;
    peak_t_ms_ = t_ms;
  }
  figures->peak_rss_bytes = peak_rss_bytes_;
  figures->peak_t_ms = peak_t_ms_;
  if (limits) {
    figures->cgroup_memory_bytes = limits->memory_bytes();
    figures->cgroup_peak_bytes = limits->counters().memory_peak_bytes;
  }
  last_t_ms_ = t_ms;
  figures->commands.reserve(commands.size());
  for (auto& [command, c] : commands) {
    c.command = command;
    figures->commands.push_back(std::move(c));
  }
  return figures;
}

void LiveFiguresBook::publish(int64_t t_ms, const TreeSampler& sampler, const LimitWatch* limits,
                              const HeapInUseTable* heap) {
  std::shared_ptr<const live::LiveFigures> figures = build(t_ms, sampler, limits, heap);
  for (live::LiveFiguresSink* sink : sinks_) {
    sink->publish(figures);
  }
}

bool LiveFiguresBook::watched() const {
  for (const live::LiveFiguresSink* sink : sinks_) {
    if (sink->watched()) {
      return true;
    }
  }
  return false;
}

void LiveFiguresBook::committed() {
  for (live::LiveFiguresSink* sink : sinks_) {
    sink->recording_committed();
  }
}

}  // namespace canopy::record
