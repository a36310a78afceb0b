// The kernel's word on the tree's processes: forks, execs and exits (process events),
// reaping (the recorder as subreaper), and how a process's row is ended. Ticks are in
// tree_sampler.cpp, reading one process in tree_sampler_reads.cpp.
#include "record/tree_sampler.h"

#include <sys/wait.h>

namespace canopy::record {

namespace {

std::string join_args(const std::vector<std::string>& args) {
  std::string text;
  for (const auto& arg : args) {
    text += (text.empty() ? "" : " ") + arg;
  }
  return text;
}

void set_exit_status(store::ProcessRow& row, int wait_status) {
  if (WIFEXITED(wait_status)) {
    row.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    row.exit_signal = WTERMSIG(wait_status);
  }
}

}  // namespace

void TreeSampler::note_exec(Tracked& p, const std::string& new_name, int64_t t_ms, uint64_t exec_ns) {
  p.title_reads_left = 0;  // its arguments are its program's own from here
  if (options_.programs) {
    options_.programs->on_program(p.row.id, static_cast<pid_t>(p.row.pid), &p.files, exec_ns);
  }
  p.row.name = new_name;
  p.unwritten_exec_ms.push_back(t_ms);
  if (p.start_code == 0 && p.identity_read_ns != 0 && !p.identity_pending) {
    // Read at its fork in the middle of this exec: no program mapped yet, but the new
    // executable and arguments in place already (the kernel sets them up before it
    // records where the code is). Only the exec itself is news.
    write_identity(p);
    return;
  }
  refresh_identity(p);
}

void TreeSampler::refresh_identity(Tracked& p) {
  auto cmdline = p.files.read_cmdline();
  // A user process always has arguments; none means its exec is still under way.
  p.identity_pending = cmdline.empty();
  if (p.identity_pending) {
    return;
  }
  auto exe = p.files.read_exe();
  if (cmdline == p.row.cmdline && exe == p.row.exe && p.unwritten_exec_ms.empty()) {
    return;  // as copied from its parent at its fork
  }
  p.row.cmdline = std::move(cmdline);
  p.row.exe = std::move(exe);
  write_identity(p);
}

// A program that names its forks by what each does writes a title over its arguments
// soon after the fork, in place, and pads it with NULs (setproctitle: Chromium's
// zygote's renderers, PostgreSQL's backends, nginx's workers): what ps shows. Read on
// the first few ticks the fork runs, the latest kept: the first may still show the
// title its parent gave itself, in the memory the fork copied. An exec ends the reads:
// it reads its program's own.
void TreeSampler::refresh_title(Tracked& p) {
  --p.title_reads_left;
  std::vector<std::string> cmdline = p.files.read_cmdline();
  while (!cmdline.empty() && cmdline.back().empty()) {
    cmdline.pop_back();
  }
  if (cmdline.empty() || cmdline == p.row.cmdline) {
    return;
  }
  p.row.cmdline = std::move(cmdline);
  writer_.update_process_exec(p.row);
}

void TreeSampler::write_identity(Tracked& p) {
  writer_.update_process_exec(p.row);
  write_exec_events(p.row, p.unwritten_exec_ms);
}

void TreeSampler::write_exec_events(const store::ProcessRow& row, std::vector<int64_t>& times_ms) {
  for (int64_t t_ms : times_ms) {
    writer_.add_event({t_ms, "exec", row.id, row.cmdline.empty() ? row.name : join_args(row.cmdline)});
  }
  times_ms.clear();
}

store::ProcessRow* TreeSampler::inherited_zombie(pid_t pid) {
  auto it = ended_unreaped_.find(pid);
  if (it == ended_unreaped_.end()) {
    return nullptr;
  }
  // A ghost's start is unknown (0); with process events a fork would have dropped
  // the entry for a reused PID anyway.
  if (it->second.start_ticks != 0) {
    auto files = probe::ProcessFiles::open(pid, options_.proc_root);
    auto stat = files ? files->read_stat() : std::nullopt;
    if (!stat || stat->start_ticks != it->second.start_ticks) {
      ended_unreaped_.erase(it);  // the PID was reused: this is another process
      return nullptr;
    }
  }
  return &it->second;
}

void TreeSampler::on_child_exiting(pid_t pid, int64_t t_ms) {
  if (ghosts_.count(pid) || inherited_zombie(pid)) {
    return;  // known already; on_child_reaped adds the status
  }
  auto it = alive_.find(pid);
  Tracked* p = it == alive_.end() ? track(pid, std::nullopt, t_ms, /*zombie_ok=*/true) : &it->second;
  if (p && !p->exited) {
    sample(*p, t_ms, it == alive_.end());
  }
}

void TreeSampler::on_child_reaped(pid_t pid, int wait_status, int64_t t_ms) {
  if (auto inherited = ended_unreaped_.find(pid); inherited != ended_unreaped_.end()) {
    // A zombie we inherited: its row has ended. Polling saw no exit status; wait's is it.
    store::ProcessRow& row = inherited->second;
    if (!row.exit_code && !row.exit_signal) {
      set_exit_status(row, wait_status);
      writer_.update_process_end(row);
    }
    ended_unreaped_.erase(inherited);
    return;
  }
  if (auto ghost = ghosts_.find(pid); ghost != ghosts_.end()) {
    set_exit_status(ghost->second.row, wait_status);
    ghost->second.row.end_ms = ghost->second.row.end_ms.value_or(t_ms);
    end_ghost(ghost->second, t_ms);
    ghosts_.erase(ghost);
    return;
  }
  auto it = alive_.find(pid);
  if (it == alive_.end()) {
    return;
  }
  Tracked& p = it->second;
  set_exit_status(p.row, wait_status);
  end(p, p.exit_event_ms.value_or(t_ms));
  alive_.erase(it);
}

std::optional<TreeSampler::Parent> TreeSampler::tree_parent(pid_t pid) const {
  if (auto it = alive_.find(pid); it != alive_.end()) {
    return Parent{pid, it->second.row.id};
  }
  if (auto ghost = ghosts_.find(pid); ghost != ghosts_.end()) {
    return Parent{pid, ghost->second.row.id};
  }
  return std::nullopt;
}

void TreeSampler::on_fork(pid_t pid, pid_t parent, int64_t t_ms, uint64_t monotonic_ns) {
  ended_unreaped_.erase(pid);  // the PID is reused: the zombie it named is gone
  if (auto it = alive_.find(pid); it != alive_.end()) {
    // A tick found it between its fork and this event (a PID is not reused while its
    // process is tracked): the event's time is exact, stat's start only to the clock
    // tick (10 ms), which would order two children of one millisecond wrongly.
    if (!it->second.exact_start) {
      it->second.row.start_ms = t_ms;
      it->second.exact_start = true;
    }
    // Found exiting, with nothing of its own to read: as track() keeps for a fork.
    if (it->second.identity_pending && !it->second.forked_from) {
      it->second.forked_from = fork_identity_of(parent);
    }
    return;
  }
  if (pid == self_ || ghosts_.count(pid)) {
    return;
  }
  std::optional<Parent> from = tree_parent(parent);
  if (!from) {
    return;  // not a process of the tree
  }
  if (Tracked* p = track(pid, from, t_ms, /*zombie_ok=*/true, ForkEvent{t_ms, monotonic_ns})) {
    // Sampled first by the next tick: at its fork a child's memory is its parent's,
    // and most children exec or end before that tick (their exit record has the
    // peak). One that ended already is read now, for its final CPU figures.
    if (p->ended_when_tracked && sample(*p, t_ms, true) == Outcome::kEnded && !awaits_exit_event(*p)) {
      end(*p, t_ms);
      alive_.erase(pid);
    }
    return;
  }
  // Gone (exited and reaped) before we could open its files: a fork copies the
  // parent's name, and the exit event will bring the rest.
  store::ProcessRow row;
  row.pid = pid;
  row.ppid = parent;
  row.parent_id = from->id;
  if (auto it = alive_.find(parent); it != alive_.end()) {
    row.name = it->second.row.name;
  } else {
    row.name = ghosts_.at(parent).row.name;
  }
  row.start_ms = t_ms;
  row.first_seen_ms = seen_at(t_ms);
  row.last_seen_ms = row.first_seen_ms;
  row.id = writer_.add_process(row);
  ++process_count_;
  if (options_.programs) {
    options_.programs->on_fork(row.id, pid, from->id, monotonic_ns);
  }
  ghosts_.emplace(pid, Ghost{std::move(row), {}, fork_identity_of(parent)});
}

void TreeSampler::on_exec(pid_t pid, int64_t t_ms, uint64_t monotonic_ns) {
  if (auto ghost = ghosts_.find(pid); ghost != ghosts_.end()) {
    ghost->second.exec_ms.push_back(t_ms);  // written as it ends, once its exit record named it
    if (options_.programs) {
      options_.programs->on_program(ghost->second.row.id, pid, nullptr, monotonic_ns);
    }
    return;
  }
  auto it = alive_.find(pid);
  if (it == alive_.end()) {
    return;
  }
  Tracked& p = it->second;
  p.title_reads_left = 0;  // its arguments are its program's own from here
  if (p.exec_event_due) {
    p.exec_event_due = false;
    if (options_.programs) {
      // The tick may have caught the exec before the kernel handed the program its
      // auxiliary vector; the event comes once the new image is in place.
      options_.programs->on_program(p.row.id, pid, &p.files, monotonic_ns);
    }
    return;  // an exec a tick found already
  }
  auto stat = p.files.read_stat();
  const bool gone = !stat || stat->state == 'Z' || stat->state == 'X';
  // The kernel stamps the event once the new image is in place. A fork event handled
  // late (the usual case: the child execs while the recorder wakes) read the process
  // after this exec: its name, executable and arguments are the new ones already.
  if (monotonic_ns < p.identity_read_ns) {
    // Still an exec of the workload's, if a process of the tree forked it. The root
    // was read after one that is not: canopy's own, of the command.
    if (!p.row.parent_id) {
      return;
    }
    if (options_.programs) {
      options_.programs->on_exec_time(p.row.id, monotonic_ns);
    }
    if (!gone) {
      // Read at its fork in the middle of the exec, it showed no program yet: the
      // image now mapped is no exec for the next tick to find.
      p.start_code = stat->start_code;
      p.start_stack = stat->start_stack;
    }
    p.unwritten_exec_ms.push_back(t_ms);
    if (!p.identity_pending) {
      write_exec_events(p.row, p.unwritten_exec_ms);
    }
    return;
  }
  if (gone) {
    // Exec'd and ended before we got here: its new executable and arguments went with
    // it. A zombie still shows its new name; its exit record names it in any case.
    if (stat) {
      p.row.name = stat->name;
    }
    p.identity_pending = true;
    p.unwritten_exec_ms.push_back(t_ms);
    if (options_.programs) {
      options_.programs->on_program(p.row.id, pid, nullptr, monotonic_ns);
    }
    return;
  }
  // The root, read after canopy's exec of the command but before the kernel stamped
  // it, shows no new image. Without address space randomisation (a sanitizer's
  // re-exec, setarch -R) a program exec'ing itself gets the very same image, so the
  // command line has the last word.
  if (!p.row.parent_id && stat->name == p.row.name && stat->start_code == p.start_code &&
      stat->start_stack == p.start_stack) {
    auto cmdline = p.files.read_cmdline();
    if (cmdline.empty() || cmdline == p.row.cmdline) {
      return;
    }
  }
  // At its exact time: the next tick sees the same image and notes nothing more.
  note_exec(p, stat->name, t_ms, monotonic_ns);
  p.start_code = stat->start_code;
  p.start_stack = stat->start_stack;
}

void TreeSampler::on_exit(pid_t pid, int wait_status, int64_t t_ms) {
  if (auto ghost = ghosts_.find(pid); ghost != ghosts_.end()) {
    store::ProcessRow& row = ghost->second.row;
    row.end_ms = t_ms;
    row.last_seen_ms = t_ms;
    set_exit_status(row, wait_status);
    if (row.ppid != self_) {  // ours: on_child_reaped writes it, with wait's status
      end_ghost(ghost->second, t_ms);
      remember_ended_unreaped(row);
      ghosts_.erase(ghost);
    }
    return;
  }
  auto it = alive_.find(pid);
  if (it == alive_.end()) {
    return;
  }
  Tracked& p = it->second;
  // A tick that found it ended already left it out of its total: it was last seen
  // alive before that tick, even when the exit's exact time is that tick's millisecond.
  const bool seen_ended = p.exited;
  // Reaped already, it has nothing left to read (its exit record has its figures).
  auto stat = p.files.read_stat();
  if (stat && !p.exited) {
    sample(p, t_ms, false);  // the final CPU figures of the zombie
  }
  if (stat && stat->state != 'Z' && stat->state != 'X') {
    // Its leader thread's exit, not its own: another thread exec'd, and the kernel
    // ended the leader and gave that thread its place (the exec event follows). The
    // PID's files show the process running, not a zombie.
    return;
  }
  if (stat && stat->ppid == self_) {
    p.exit_event_ms = t_ms;  // ours to reap: on_child_reaped ends it at this time
    return;
  }
  set_exit_status(p.row, wait_status);
  if (!seen_ended) {
    p.row.last_seen_ms = seen_at(t_ms);
  }
  end(p, t_ms);
  remember_ended_unreaped(p.row);
  alive_.erase(it);
}

bool TreeSampler::awaits_exit_event(Tracked& p) {
  // With process events, an ended process waits for its exit event, which brings its
  // exact end and its exit status: the exiting process queues that event itself, just
  // after it becomes a zombie, so it is on its way. Whether it was reaped already (its
  // files are gone) or is still a zombie does not matter; the next tick's drain of
  // the events ends it, and a tick that finds it still waiting knows the event was lost.
  if (!options_.process_events) {
    return false;
  }
  p.exited = true;
  return true;
}

void TreeSampler::remember_ended_unreaped(const store::ProcessRow& row) {
  // Most are reaped by their parent and never reach us: forget those ended a minute
  // ago, oldest first. An entry replaced since (its PID reused) has another end time.
  const int64_t t_ms = row.end_ms.value_or(0);
  while (!ended_unreaped_by_end_.empty() && t_ms - ended_unreaped_by_end_.front().first > 60'000) {
    auto [end_ms, pid] = ended_unreaped_by_end_.front();
    ended_unreaped_by_end_.pop_front();
    if (auto it = ended_unreaped_.find(pid); it != ended_unreaped_.end() && it->second.end_ms.value_or(0) == end_ms) {
      ended_unreaped_.erase(it);
    }
  }
  ended_unreaped_.insert_or_assign(static_cast<pid_t>(row.pid), row);
  ended_unreaped_by_end_.emplace_back(t_ms, static_cast<pid_t>(row.pid));
}

void TreeSampler::end(Tracked& p, int64_t t_ms) {
  p.row.end_ms = t_ms;
  p.row.cpu_user_ns = p.cpu.user_ns;
  p.row.cpu_system_ns = p.cpu.system_ns;
  ended_cpu_ns_ += p.values.cpu_ns().value_or(0);
  const bool identity_unread = p.identity_pending || !p.unwritten_exec_ms.empty();
  if (identity_unread) {
    // Gone before the command line of its last exec could be read: the executable and
    // arguments at hand are an earlier image's (its parent's, copied at the fork).
    p.row.exe.clear();
    p.row.cmdline.clear();
    writer_.update_process_exec(p.row);
  }
  write_end(p.row, t_ms, identity_unread, std::move(p.forked_from), p.borrowed_memory);
  write_exec_events(p.row, p.unwritten_exec_ms);  // named by the exit record, if one came
}

void TreeSampler::end_ghost(Ghost& ghost, int64_t t_ms) {
  write_end(ghost.row, t_ms, /*identity_unread=*/true, std::move(ghost.forked_from), /*borrowed_memory=*/false);
  write_exec_events(ghost.row, ghost.exec_ms);
}

void TreeSampler::write_end(store::ProcessRow& row, int64_t t_ms, bool identity_unread,
                            std::optional<ExitRecords::ForkIdentity> forked_from, bool borrowed_memory) {
  exit_records_.on_end(row, t_ms, identity_unread, std::move(forked_from), borrowed_memory);
  writer_.update_process_end(row);
  if (row.exit_signal) {
    killed_.push_back(row);
  }
}

}  // namespace canopy::record
