// Reading one process at a tick: which of its /proc files to read (the cheapest that
// can tell whether anything changed first), what an exec looks like there, and its
// sample row. Tracking the tree and ticks are in tree_sampler.cpp.
#include "record/tree_sampler.h"

#include <algorithm>

namespace canopy::record {

using store::SampleValues;

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
  if (p.borrowed_memory) {
    p.shmem_bytes = 0;  // the status, swap and peak (VmHWM) are its parent's
    v[store::kSwapBytes] = 0;
  } else if (never_read || (memory_changed && (shrank || new_peak)) || t_ms - *p.last_status_ms >= 1000) {
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

// A child between vfork and exec (posix_spawn's, Python's subprocess, make's), or a
// clone that shares its parent's memory (LeakSanitizer's tracer): its statm and status
// show its parent's address space, which the parent's row counts already. Asked before
// the statm read it answers for: an address space is never shared again once it is
// not, so "separate" stays true through the read, and "shared" that an exec ends
// meanwhile only zeroes the first read of a program just begun.
bool TreeSampler::borrows_memory(Tracked& p) {
  if (p.own_address_space) {
    return false;
  }
  if (options_.proc_root != "/proc") {
    p.own_address_space = true;  // a test's processes: their PIDs are not the kernel's
    return false;
  }
  auto pid = static_cast<pid_t>(p.row.pid);
  auto parent = static_cast<pid_t>(p.row.ppid);
  if (parent <= 0 || probe::compare_address_spaces(parent, pid) != probe::AddressSpaces::kShared) {
    p.own_address_space = true;
    return false;
  }
  return true;
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
  const bool borrowed = borrows_memory(p);
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
  if (borrowed) {
    statm = probe::StatmFields{};  // none of it its own
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
  // An exec shows as a new image, or as a new name with no program mapped yet; a child
  // caught between fork and exec would otherwise keep its parent's command line. A new
  // name on the same image is a rename (prctl PR_SET_NAME: stress-ng's workers, a
  // Node.js process.title), not an exec: the program, its arguments and its
  // environment are as they were.
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
  const bool renamed = stat->name != p.row.name;
  if (!first && (new_image || (renamed && image_gone))) {
    p.exec_event_due = true;
    p.exec_awaits_image = image_gone;
    note_exec(p, stat->name, t_ms, 0);
  } else if (renamed && !first) {
    p.row.name = stat->name;
    writer_.update_process_exec(p.row);
  } else if (p.identity_pending && !first) {
    refresh_identity(p);
  } else if (p.title_reads_left > 0 && p.ran) {
    refresh_title(p);
  }
  if (!image_gone) {
    if (p.exec_awaits_image && options_.programs) {
      // Looked at before its program was in place: again, now that it is (without
      // process events, no exec event will come to do it).
      options_.programs->on_program(p.row.id, static_cast<pid_t>(p.row.pid), &p.files, 0);
    }
    p.start_code = stat->start_code;
    p.start_stack = stat->start_stack;
    p.exec_awaits_image = false;
  }
  if (run_ns) {
    p.last_run_ns = run_ns;
  }
  // Set only now that it is known to live: a zombie has no address space to share, and
  // its end keeps what its last live read found (ExitRecords::on_end).
  p.borrowed_memory = borrowed;
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
  if (pss_due && p.borrowed_memory) {
    v[store::kPssBytes] = 0;
    v[store::kUssBytes] = 0;
    p.last_pss_ms = t_ms;
  } else if (pss_due) {
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

}  // namespace canopy::record
