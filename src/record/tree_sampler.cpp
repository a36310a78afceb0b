// Tracking the tree: its root, the processes found in children lists, each tick's
// totals and the end of the recording. Reading one process is in
// tree_sampler_reads.cpp; the kernel's events in tree_sampler_events.cpp.
#include "record/tree_sampler.h"

#include <unistd.h>

#include <algorithm>

namespace canopy::record {

TreeSampler::TreeSampler(store::Writer& writer, const probe::HostInfo& host, SamplerOptions options)
    : writer_(writer),
      host_(host),
      options_(options),
      self_(::getpid()),
      meminfo_(options_.meminfo_path.empty() ? options_.proc_root + "/meminfo" : options_.meminfo_path),
      forks_all_heard_(options.process_events) {
  if (options_.adopt_own_children) {
    self_files_ = probe::ProcessFiles::open(self_, options_.proc_root);
  }
}

void TreeSampler::process_events_lost() {
  if (forks_all_heard_) {
    forks_all_heard_ = false;
    rediscover_all_ = true;  // a lost fork may be of a process that has not run since
  }
}

std::optional<int64_t> TreeSampler::process_id(pid_t pid) const {
  auto it = alive_.find(pid);
  return it == alive_.end() ? std::nullopt : std::optional<int64_t>(it->second.row.id);
}

TreeSampler::Tracked* TreeSampler::track(pid_t pid, std::optional<Parent> parent, int64_t t_ms, bool zombie_ok,
                                         std::optional<ForkEvent> fork) {
  auto files = probe::ProcessFiles::open(pid, options_.proc_root);
  if (!files) {
    return nullptr;
  }
  const uint64_t read_ns = probe::now_monotonic_ns();
  auto stat = files->read_stat();
  // A child found in its parent's list whose ppid differs is a reused PID: the child
  // ended between the list and the open, and this is an unrelated process. A fork
  // event (`fork`) names the parent itself: the child may have been orphaned and
  // reparented since, but its PID cannot have been reused so soon.
  bool from_fork_event = fork.has_value();
  if (!stat || (parent && !from_fork_event && stat->ppid != parent->pid)) {
    return nullptr;
  }
  // A zombie in a children list has ended already (often one we tracked, still
  // waiting for its parent's wait): only our own, reaped for its exit status, count.
  if ((stat->state == 'Z' || stat->state == 'X') && !zombie_ok) {
    return nullptr;
  }
  Tracked p{std::move(*files)};
  p.exact_start = from_fork_event;
  const int64_t seen_ms = seen_at(t_ms);
  p.row.pid = pid;
  p.row.start_ticks = stat->start_ticks;
  p.row.start_ms = fork ? fork->t_ms : host_.boot_time_ms + stat->start_ticks * 1000 / host_.clock_ticks_per_second;
  p.row.parent_id = parent ? std::optional<int64_t>(parent->id) : std::nullopt;
  p.row.ppid = parent && from_fork_event ? parent->pid : stat->ppid;
  p.row.adopted = !parent && process_count_ > 0;  // the first is the root
  p.row.name = stat->name;
  p.start_code = stat->start_code;
  p.start_stack = stat->start_stack;
  p.ended_when_tracked = stat->state == 'Z' || stat->state == 'X';
  const Tracked* forker = from_fork_event ? same_image_parent(*stat, parent->pid) : nullptr;
  if (forker) {
    // Not exec'd yet: a fork copies its parent's executable and arguments, exactly.
    // Its exec event, if one comes, reads its own.
    p.row.exe = forker->row.exe;
    p.row.cmdline = forker->row.cmdline;
  } else {
    p.row.exe = p.files.read_exe();
    p.row.cmdline = p.files.read_cmdline();
    p.identity_pending = p.row.cmdline.empty();
    p.identity_read_ns = p.identity_pending ? 0 : read_ns;
    // Ended, or on its way (its memory gone before it turned zombie): nothing of its
    // own to read. If it never exec'd, its record will say so.
    if (from_fork_event && (p.ended_when_tracked || p.identity_pending)) {
      p.forked_from = fork_identity_of(parent->pid);
    }
  }
  p.row.first_seen_ms = seen_ms;
  p.row.last_seen_ms = seen_ms;
  p.row.id = writer_.add_process(p.row);
  ++process_count_;
  // A fork still in its parent's program, whether its event came first or a tick found
  // it in its parent's children list (events lag behind a loaded machine's ticks), and
  // then forked before the read that showed it so. A title it gives itself is read on
  // the first ticks it runs.
  const bool runs_parents_program = forker || (parent && same_image_parent(*stat, parent->pid));
  if (runs_parents_program) {
    p.title_reads_left = kTitleReads;
  }
  if (ProgramWatch* programs = options_.programs) {
    if (runs_parents_program) {
      programs->on_fork(p.row.id, pid, parent->id, fork ? fork->monotonic_ns : read_ns);
    } else {
      programs->on_program(p.row.id, pid, &p.files, 0);
    }
  }
  return &alive_.insert_or_assign(pid, std::move(p)).first->second;
}

std::optional<ExitRecords::ForkIdentity> TreeSampler::fork_identity_of(pid_t parent) const {
  auto it = alive_.find(parent);
  if (it == alive_.end() || it->second.identity_pending) {
    return std::nullopt;
  }
  return ExitRecords::ForkIdentity{it->second.row.exe, it->second.row.cmdline};
}

const TreeSampler::Tracked* TreeSampler::same_image_parent(const probe::StatFields& child, pid_t parent) const {
  auto it = alive_.find(parent);
  if (it == alive_.end()) {
    return nullptr;
  }
  const Tracked& p = it->second;
  bool same_image = child.name == p.row.name && child.start_code == p.start_code && child.start_stack == p.start_stack;
  return same_image && !p.identity_pending ? &p : nullptr;
}

bool TreeSampler::add_root(pid_t pid, int64_t t_ms) {
  Tracked* p = track(pid, std::nullopt, t_ms, /*zombie_ok=*/true);
  if (!p) {
    return false;
  }
  Outcome outcome = sample(*p, t_ms, true);
  if (outcome == Outcome::kAlive) {
    discover({pid}, t_ms);  // an attached root may have children already
    return true;
  }
  if (outcome == Outcome::kEnded) {
    end(*p, t_ms);
    alive_.erase(pid);
  }
  return false;  // kZombieChild stays tracked until reaped, for its exit status
}

void TreeSampler::discover(std::vector<pid_t> parents, int64_t t_ms) {
  while (!parents.empty()) {
    pid_t parent = parents.back();
    parents.pop_back();
    auto it = alive_.find(parent);
    if (it == alive_.end() || it->second.exited) {
      continue;
    }
    const Parent from{parent, it->second.row.id};
    for (pid_t child : it->second.files.read_children(it->second.threads)) {
      if (child == self_ || alive_.count(child)) {
        continue;
      }
      // `it` may be invalidated from here on: track() inserts into alive_.
      Tracked* p = track(child, from, t_ms);
      if (!p) {
        continue;  // already gone
      }
      Outcome outcome = sample(*p, t_ms, true);
      // Ended between the open and the sample, it too waits for its exit event: found
      // before the drain reached its fork event, it must still be tracked when that
      // event comes, or the event would track the zombie again as a new process.
      if (outcome == Outcome::kEnded && !awaits_exit_event(*p)) {
        end(*p, t_ms);
        alive_.erase(child);
      } else if (outcome == Outcome::kAlive) {
        parents.push_back(child);
      }
    }
  }
}

int64_t TreeSampler::tick(int64_t t_ms) {
  // After every sighting so far, even one of this very millisecond (see seen_at).
  t_ms = std::max(t_ms, latest_seen_ms_ + 1);
  exit_records_.expire(t_ms);
  kernel_moved_memory_.reset();  // asked again by this tick's first idle process
  const bool tree_still = tree_stood_still(t_ms);
  std::vector<pid_t> ran;
  for (auto it = alive_.begin(); it != alive_.end();) {
    Tracked& p = it->second;
    if (p.exited && options_.process_events && !p.files.read_stat()) {
      end(p, t_ms);  // reaped, and its exit event was lost: the end is as seen
      it = alive_.erase(it);
      continue;
    }
    if (!p.exited) {
      Outcome outcome = sample(p, t_ms, false, tree_still);
      if (outcome == Outcome::kEnded && !awaits_exit_event(p)) {
        end(p, t_ms);
        if (p.exited) {
          remember_ended_unreaped(p.row);  // a zombie whose parent may never reap it
        }
        it = alive_.erase(it);
        continue;
      }
      if (outcome == Outcome::kAlive && (p.ran || rediscover_all_) && !forks_all_heard_) {
        ran.push_back(it->first);
      }
    }
    ++it;
  }
  rediscover_all_ = false;
  discover(std::move(ran), t_ms);

  if (self_files_ && !forks_all_heard_) {
    // Orphans of the tree, reparented to us as the subreaper. Their original parent
    // is gone (often before we ever saw it), so they are recorded as adopted. The
    // recorder is single-threaded: its leader's list holds all its children. When
    // every fork is heard, each orphan was tracked at its fork.
    for (pid_t child : self_files_->read_children(1)) {
      if (alive_.count(child)) {
        continue;
      }
      if (Tracked* p = track(child, std::nullopt, t_ms)) {
        if (sample(*p, t_ms, true) == Outcome::kAlive) {
          discover({child}, t_ms);
        }
      }
    }
  }

  store::TickRow row;
  row.t_ms = t_ms;
  row.cpu_ns = ended_cpu_ns_ + exit_records_.cpu_added_ns();
  if (options_.pss) {
    row.pss_bytes = 0;
  }
  for (const auto& [pid, p] : alive_) {
    row.cpu_ns += p.values.cpu_ns().value_or(0);
    if (p.exited) {
      continue;
    }
    ++row.processes;
    row.rss_bytes += p.values.rss_bytes().value_or(0);
    row.swap_bytes += p.values[store::kSwapBytes].value_or(0);
    if (options_.pss) {
      *row.pss_bytes += p.values[store::kPssBytes].value_or(0);
    }
  }
  if (t_ms - meminfo_last_ms_ >= kMeminfoAtLeastApartMs) {
    auto meminfo_text = meminfo_.read();
    meminfo_last_ = meminfo_text ? probe::parse_meminfo(*meminfo_text) : std::nullopt;
    meminfo_last_ms_ = t_ms;
  }
  if (const auto& meminfo = meminfo_last_) {
    row.mem_total_bytes = meminfo->mem_total_bytes;
    row.mem_available_bytes = meminfo->mem_available_bytes;
    row.swap_total_bytes = meminfo->swap_total_bytes;
    row.swap_free_bytes = meminfo->swap_free_bytes;
  }
  writer_.add_tick(row);
  last_tick_ms_ = t_ms;
  last_tick_cpu_ns_ = row.cpu_ns;
  return t_ms;
}

std::vector<pid_t> TreeSampler::alive_pids() const {
  std::vector<pid_t> pids;
  for (const auto& [pid, p] : alive_) {
    if (!p.exited) {
      pids.push_back(pid);
    }
  }
  return pids;
}

void TreeSampler::live_processes(std::vector<LiveProcess>& out) const {
  out.clear();
  for (const auto& [pid, p] : alive_) {
    if (p.exited) {
      continue;
    }
    out.push_back({p.row.id, pid, &p.row.name, p.values.rss_bytes().value_or(0),
                   p.values[store::kRssAnonBytes].value_or(0), p.values[store::kSwapBytes].value_or(0),
                   p.cpu.user_ns, p.cpu.system_ns, p.threads});
  }
}

std::vector<store::ProcessRow> TreeSampler::take_killed() {
  std::vector<store::ProcessRow> taken;
  taken.swap(killed_);
  return taken;
}

void TreeSampler::finish(int64_t t_ms) {
  for (auto& [pid, p] : alive_) {
    if (p.exited && !p.files.read_stat()) {
      end(p, t_ms);  // ended in the last round: its exit event came too late, or was lost
      continue;
    }
    if (!p.unwritten_exec_ms.empty()) {
      refresh_identity(p);
      write_exec_events(p.row, p.unwritten_exec_ms);  // its arguments still unreadable: by name
    }
    p.row.last_seen_ms = std::max(t_ms, last_tick_ms_);  // counted in the last tick
    p.row.cpu_user_ns = p.cpu.user_ns;
    p.row.cpu_system_ns = p.cpu.system_ns;
    writer_.update_process_end(p.row);  // end_ms stays NULL: still running
  }
  alive_.clear();
}

}  // namespace canopy::record
