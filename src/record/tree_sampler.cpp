#include "record/tree_sampler.h"

#include <unistd.h>

#include <algorithm>

namespace canopy::record {

using store::SampleValues;

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
                                         std::optional<int64_t> start_ms) {
  auto files = probe::ProcessFiles::open(pid, options_.proc_root);
  if (!files) {
    return nullptr;
  }
  const uint64_t read_ns = probe::now_monotonic_ns();
  auto stat = files->read_stat();
  // A child found in its parent's list whose ppid differs is a reused PID: the child
  // ended between the list and the open, and this is an unrelated process. A fork
  // event names the parent itself (`start_ms` comes from one): the child may have
  // been orphaned and reparented since, but its PID cannot have been reused so soon.
  bool from_fork_event = start_ms.has_value();
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
  p.row.start_ms = start_ms.value_or(host_.boot_time_ms + stat->start_ticks * 1000 / host_.clock_ticks_per_second);
  p.row.parent_id = parent ? std::optional<int64_t>(parent->id) : std::nullopt;
  p.row.ppid = parent && from_fork_event ? parent->pid : stat->ppid;
  p.row.adopted = !parent && process_count_ > 0;  // the first is the root
  p.row.name = stat->name;
  p.start_code = stat->start_code;
  p.start_stack = stat->start_stack;
  p.ended_when_tracked = stat->state == 'Z' || stat->state == 'X';
  if (const Tracked* forker = from_fork_event ? same_image_parent(*stat, parent->pid) : nullptr) {
    // Not exec'd yet: a fork copies its parent's executable and arguments, exactly.
    // Its exec event, if one comes, reads its own.
    p.row.exe = forker->row.exe;
    p.row.cmdline = forker->row.cmdline;
  } else {
    p.row.exe = p.files.read_exe();
    p.row.cmdline = p.files.read_cmdline();
    p.identity_pending = p.row.cmdline.empty();
    p.identity_read_ns = p.identity_pending ? 0 : read_ns;
  }
  p.row.first_seen_ms = seen_ms;
  p.row.last_seen_ms = seen_ms;
  p.row.id = writer_.add_process(p.row);
  ++process_count_;
  return &alive_.insert_or_assign(pid, std::move(p)).first->second;
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

void TreeSampler::read_memory(Tracked& p, const probe::StatmFields& statm, bool memory_changed, int64_t t_ms) {
  SampleValues& v = p.values;
  const int64_t page = host_.page_size_bytes;
  bool shrank = statm.resident_pages < p.last_statm.resident_pages;
  bool new_peak = statm.resident_pages * page > p.row.peak_rss_bytes.value_or(0);
  p.last_statm = statm;
  v[store::kVmSizeBytes] = statm.size_pages * page;

  // status is the costly read; it alone splits file from shmem and gives swap and the
  // exact peak (VmHWM, which also catches a peak between two samples). Read it on a
  // shrink (reclaim or swap-out), on a new peak, and otherwise once a second.
  bool never_read = !p.last_status_ms;
  if (never_read || (memory_changed && (shrank || new_peak)) || t_ms - *p.last_status_ms >= 1000) {
    if (auto status = p.leader_exited ? p.files.read_live_thread_status() : p.files.read_status()) {
      p.shmem_bytes = status->rss_shmem_bytes;
      v[store::kSwapBytes] = status->swap_bytes;
      p.row.hwm_bytes = std::max(p.row.hwm_bytes.value_or(0), status->hwm_bytes);
      p.last_status_ms = t_ms;
    }
  }
  // statm's shared pages are file-backed plus shmem, so anon is exact from statm alone.
  const int64_t shared_bytes = statm.shared_pages * page;
  v[store::kRssAnonBytes] = (statm.resident_pages - statm.shared_pages) * page;
  v[store::kRssShmemBytes] = std::min(p.shmem_bytes, shared_bytes);
  v[store::kRssFileBytes] = shared_bytes - *v[store::kRssShmemBytes];
}

TreeSampler::Outcome TreeSampler::sample(Tracked& p, int64_t t_ms, bool first, bool tree_still) {
  t_ms = seen_at(t_ms);
  std::optional<int64_t> run_ns;
  // None of its threads ran, so its schedstat stands where it did. (Nor can it have
  // ended unseen: ending takes CPU.)
  const bool still = tree_still && !first && p.last_run_ns;
  if (still) {
    run_ns = p.last_run_ns;
  } else if (p.files.has_schedstat()) {
    run_ns = p.files.read_run_ns();
    if (!run_ns) {
      return Outcome::kEnded;
    }
  }
  // schedstat covers only the leader thread, so a process with several threads may
  // have run (and forked) without it showing: such processes are read in full.
  p.ran = !still && (first || !run_ns || p.threads > 1 || run_ns != p.last_run_ns);
  // PSS changes when *other* processes map or unmap the pages it shares, so it is
  // read when due even if this process did nothing.
  bool pss_due = options_.pss && (first || !p.last_pss_ms || t_ms - *p.last_pss_ms >= options_.pss_interval_ms);
  // A process that did not run cannot have changed its own memory. The kernel can
  // (reclaim, swap-out, huge page collapse, an OOM kill), and vmstat says whether it
  // did anywhere since the last tick. Rarer outside hands (a debugger's writes, a
  // mapped file truncated) are caught by a full read at least once a second.
  bool memory_still = !p.ran && p.last_statm_ms && t_ms - *p.last_statm_ms < kStatmAtLeastEveryMs &&
                      !kernel_may_have_moved_memory();
  if (memory_still && !pss_due) {
    p.row.last_seen_ms = t_ms;
    return Outcome::kAlive;  // nothing can have changed: one read, no row
  }
  std::optional<probe::StatmFields> statm;
  if (p.leader_exited) {
    statm = p.files.read_live_thread_statm();
  }
  if (!statm) {
    statm = p.files.read_statm();
  }
  if (!statm) {
    return Outcome::kEnded;
  }
  p.last_statm_ms = t_ms;
  bool memory_changed = first || !(*statm == p.last_statm);
  if (!p.ran && !memory_changed && !pss_due) {
    p.row.last_seen_ms = t_ms;
    return Outcome::kAlive;  // nothing has changed: no more reads, no row
  }
  auto stat = p.files.read_stat();
  if (!stat) {
    return Outcome::kEnded;
  }
  SampleValues& v = p.values;
  p.cpu = probe::split_cpu_time(stat->user_ticks, stat->system_ticks, host_.clock_ticks_per_second, run_ns, p.cpu);
  v[store::kCpuUserNs] = p.cpu.user_ns;
  v[store::kCpuSystemNs] = p.cpu.system_ns;
  v[store::kMinorFaults] = stat->minor_faults;
  v[store::kMajorFaults] = stat->major_faults;
  const bool zombie = stat->state == 'Z' || stat->state == 'X';
  const bool leader_only = zombie && stat->threads > 1;  // see Tracked::leader_exited
  if (leader_only && !p.leader_exited) {
    p.leader_exited = true;
    // The statm read was the leader's: none of the memory the other threads still use.
    if (auto shared = p.files.read_live_thread_statm()) {
      statm = shared;
      memory_changed = first || !(*statm == p.last_statm);
    }
  } else if (!zombie) {
    p.leader_exited = false;  // a thread exec'd, and leads in its place
  }
  if (zombie && !leader_only) {
    // Its memory is gone but its CPU figures are final: keep those, not the zeros.
    writer_.add_sample(t_ms, p.row.id, v);
    p.exited = true;
    return stat->ppid == self_ ? Outcome::kZombieChild : Outcome::kEnded;
  }
  // An exec shows as a new name or, when the name stays (sh running sh, a program
  // re-executing itself), as a new image; a child caught between fork and exec
  // would otherwise keep its parent's command line.
  //
  // No program mapped is not a new image: an exiting process lets go of its memory
  // first, and until it is a zombie stat shows start_code and start_stack 0 (freeing
  // 512 MiB took 7 ticks at 10 ms). Taken for an exec, each of those ticks read its
  // command line, found it empty, and tried again at the next. An exec shows its new
  // name and stack before it maps the program and sets start_code. The image it had
  // is kept, so an exec caught at that instant still shows against it once the new
  // one is mapped; unless the exec was noted already by its new name: then that image
  // is its.
  const bool image_gone = stat->start_code == 0;
  const bool new_image = !image_gone && !p.exec_awaits_image &&
                         (stat->start_code != p.start_code || stat->start_stack != p.start_stack);
  if (!first && (stat->name != p.row.name || new_image)) {
    p.exec_event_due = true;
    p.exec_awaits_image = image_gone;
    note_exec(p, stat->name, t_ms);
  } else if (p.identity_pending && !first) {
    refresh_identity(p);
  }
  if (!image_gone) {
    p.start_code = stat->start_code;
    p.start_stack = stat->start_stack;
    p.exec_awaits_image = false;
  }
  if (run_ns) {
    p.last_run_ns = run_ns;
  }
  p.threads = stat->threads;
  v[store::kThreads] = stat->threads;
  read_memory(p, *statm, memory_changed, t_ms);
  if (p.ran && p.files.has_io()) {
    if (auto io = p.files.read_io()) {
      v[store::kReadBytes] = io->read_bytes;
      v[store::kWriteBytes] = io->write_bytes;
      v[store::kDiskReadBytes] = io->disk_read_bytes;
      v[store::kDiskWriteBytes] = io->disk_write_bytes;
    }
  }
  if (pss_due) {
    if (auto rollup = p.files.read_smaps_rollup()) {
      v[store::kPssBytes] = rollup->pss_bytes;
      v[store::kUssBytes] = rollup->uss_bytes;
      p.last_pss_ms = t_ms;
    }
  }
  int64_t rss = *v.rss_bytes();  // read_memory set anon
  if (!p.row.peak_rss_bytes || rss > *p.row.peak_rss_bytes) {
    p.row.peak_rss_bytes = rss;
    p.row.peak_rss_t_ms = t_ms;
  }
  p.row.last_seen_ms = t_ms;
  writer_.add_sample(t_ms, p.row.id, v);
  return Outcome::kAlive;
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
