#include "record/limit_watch.h"

#include <signal.h>

#include <algorithm>

#include "common/process_words.h"
#include "common/text.h"

namespace canopy::record {

namespace {

// How a limit's event names a process: as the summary's list of peaks does, with the
// words that tell it from others of its name ("cc1plus src/json.cpp (pid 4121)").
std::string limit_event_process(const store::ProcessRow& row) {
  return process_title(row.name, row.cmdline) + " (pid " + std::to_string(row.pid) + ")";
}

}  // namespace

void LimitWatch::note(int64_t t_ms, std::optional<int64_t> process_id, const std::string& text) {
  writer_.add_event({t_ms, "limit", process_id, text});
}

void LimitWatch::note_memory_limit_reached(int64_t t_ms) {
  note(t_ms, std::nullopt,
       "the tree reached its --memory-limit " + format_bytes(limits_.memory_bytes.value_or(0)) +
           ": the kernel reclaims its memory, and OOM-kills when it cannot");
  memory_limit_note_due_ms_.reset();
}

void LimitWatch::set_hit(const std::string& hit) {
  if (hit_.empty() || hit == "timeout") {
    hit_ = hit;  // a timeout decides the exit status, whatever else hit first
  }
}

std::vector<pid_t> LimitWatch::tree() const {
  // The cgroup holds every process of the tree, ones we have not seen yet included;
  // without one, the sampler knows the tree, orphans adopted by us included.
  return cgroup_ ? cgroup_->members() : sampler_.alive_pids();
}

void LimitWatch::watch(int64_t t_ms, bool last) {
  if (cgroup_) {
    read_cgroup(t_ms, last);
  }
  name_killed(t_ms);
  // Held back while the OOM kills it caused wait for their processes' exits, which come
  // with earlier times, for as long as name_killed waits for them.
  if (memory_limit_note_due_ms_ &&
      (oom_kills_unnamed_ == 0 || last || t_ms - *memory_limit_note_due_ms_ > kOomKillMatchMs)) {
    note_memory_limit_reached(*memory_limit_note_due_ms_);
  }
  if (limits_.timeout_ms && !stopping_since_ && t_ms - start_ms_ >= *limits_.timeout_ms) {
    stop_tree(t_ms, "--timeout " + format_duration_ms(*limits_.timeout_ms) + " is up", "timeout");
  }
  continue_stopping(t_ms);
}

void LimitWatch::read_cgroup(int64_t t_ms, bool last) {
  auto memory = cgroup_->memory_bytes();
  if (!memory) {
    return;
  }
  CgroupReading reading = last_;
  reading.memory_bytes = *memory;
  reading.cpu_ns = sampler_.tree_cpu_read_at(t_ms);
  if (!reading.cpu_ns) {
    reading.cpu_ns = cgroup_->tree_cpu_ns();
  }
  // The peak, OOM kills and limit hits are read once a second and at the end: the peak
  // is a high-water mark and the summary takes the highest, and an OOM kill is named
  // at the time its process ended, so neither needs them sooner. Only a limit acts on
  // them at once (the memory limit's hits, the forks refused); with one, they are read
  // whenever they can have moved: when the tree ran (its CPU moved) or its memory
  // changed. (On v1 they are two more reads, about 3 µs, on every tick a tree runs.)
  const bool acts_at_once = limits_.memory_bytes || limits_.max_processes;
  const bool tree_ran = !reading.cpu_ns || !last_.cpu_ns || *reading.cpu_ns != *last_.cpu_ns;
  if (!last_counters_ms_ || last || t_ms - *last_counters_ms_ >= kCountersAtLeastEveryMs ||
      (acts_at_once && (tree_ran || *memory != last_.memory_bytes))) {
    cgroup_->read_counters(reading);
    last_counters_ms_ = t_ms;
  }
  // Between two reads of the peak, the memory now is a floor for it: a high-water mark
  // below the memory at the same tick is one read too long ago.
  if (reading.memory_peak_bytes) {
    reading.memory_peak_bytes = std::max(*reading.memory_peak_bytes, reading.memory_bytes);
  }
  writer_.add_cgroup_tick({t_ms, reading.memory_bytes, reading.memory_peak_bytes, reading.cpu_ns,
                           reading.oom_kills, reading.memory_limit_hits});
  // The failure counters stay 0 on some kernels (this one's v1): the peak reaching
  // the limit says the same, and so does an OOM kill in the cgroup.
  bool at_limit = reading.memory_limit_hits > 0 || reading.oom_kills > 0 ||
                  (limits_.memory_bytes && reading.memory_peak_bytes.value_or(0) >= *limits_.memory_bytes * 99 / 100);
  if (limits_.memory_bytes && at_limit && !memory_limit_reached_) {
    memory_limit_reached_ = true;
    set_hit("memory");
    memory_limit_note_due_ms_ = t_ms;  // noted by note_memory_limit_reached
  }
  if (limits_.max_processes && reading.pids_limit_hits > last_.pids_limit_hits) {
    set_hit("max-processes");
    note(t_ms, std::nullopt,
         count_of(reading.pids_limit_hits - last_.pids_limit_hits, "fork", "forks") +
             " refused: the tree has its --max-processes " + std::to_string(*limits_.max_processes));
  }
  oom_kills_unnamed_ += reading.oom_kills - last_.oom_kills;
  if (limits_.cpu_time_ms && reading.cpu_ns && !stopping_since_ &&
      *reading.cpu_ns >= *limits_.cpu_time_ms * 1'000'000) {
    stop_tree(t_ms, "the tree used up its --cpu-time " + format_duration_ms(*limits_.cpu_time_ms), "cpu-time");
  }
  last_ = reading;
}

void LimitWatch::name_killed(int64_t t_ms) {
  for (auto& row : sampler_.take_killed()) {
    if (row.exit_signal == SIGXCPU) {
      // RLIMIT_CPU (no cgroup): the kernel sends SIGXCPU at the limit.
      set_hit("cpu-time");
      int64_t cpu_ms = (row.cpu_user_ns.value_or(0) + row.cpu_system_ns.value_or(0)) / 1'000'000;
      note(row.end_ms.value_or(t_ms), row.id,
           limit_event_process(row) + " used up its CPU time (--cpu-time " +
               format_duration_ms(limits_.cpu_time_ms.value_or(0)) + ", per process): SIGXCPU after " +
               format_duration_ms(cpu_ms) + " of CPU");
    } else if (row.exit_signal == SIGKILL) {
      sigkilled_.push_back(std::move(row));
    }
  }
  // The cgroup counts an OOM kill when it happens; the process is seen ending by its
  // exit event, a moment before or after. Match them, the latest kills first. The limit
  // was reached by the first of them, if not before the tick that saw it.
  if (memory_limit_note_due_ms_ && oom_kills_unnamed_ > 0 && !sigkilled_.empty()) {
    size_t named = std::min(sigkilled_.size(), static_cast<size_t>(oom_kills_unnamed_));
    int64_t first_ms = *memory_limit_note_due_ms_;
    for (size_t i = sigkilled_.size() - named; i < sigkilled_.size(); ++i) {
      first_ms = std::min(first_ms, sigkilled_[i].end_ms.value_or(first_ms));
    }
    note_memory_limit_reached(first_ms);
  }
  while (oom_kills_unnamed_ > 0 && !sigkilled_.empty()) {
    const store::ProcessRow& row = sigkilled_.back();
    set_hit("memory");
    int64_t memory = std::max(row.hwm_bytes.value_or(0), row.peak_rss_bytes.value_or(0));
    note(row.end_ms.value_or(t_ms), row.id,
         "OOM kill: " + limit_event_process(row) + " at " + format_bytes(memory) +
             " resident, under the tree's --memory-limit " + format_bytes(limits_.memory_bytes.value_or(0)));
    ++oom_kills_by_command_[row.name];
    sigkilled_.pop_back();
    --oom_kills_unnamed_;
  }
  // A SIGKILL the cgroup did not count within a couple of seconds was someone else's.
  std::erase_if(sigkilled_,
                [&](const store::ProcessRow& row) { return t_ms - row.end_ms.value_or(t_ms) > kOomKillMatchMs; });
}

void LimitWatch::stop_tree(int64_t t_ms, const std::string& why, const std::string& hit) {
  stopping_since_ = t_ms;
  set_hit(hit);
  // What ran until now did not end on its own: the growth analysis judges it up to here.
  writer_.set_meta({.tree_stopped_ms = t_ms});
  const auto processes = static_cast<int64_t>(tree().size());
  note(t_ms, std::nullopt, why + ": SIGTERM to the tree (" + count_of(processes, "process", "processes") + ")");
}

void LimitWatch::continue_stopping(int64_t t_ms) {
  if (!stopping_since_) {
    return;
  }
  if (!killed_ && t_ms - *stopping_since_ >= limits_.kill_grace_ms) {
    killed_ = true;
    size_t running = tree().size();
    if (running > 0) {
      note(t_ms, std::nullopt,
           "still running after the " + format_duration_ms(limits_.kill_grace_ms) + " grace: SIGKILL to the tree (" +
               count_of(static_cast<int64_t>(running), "process", "processes") + ")");
    }
  }
  if (killed_ && cgroup_) {
    cgroup_->kill_all();
    return;
  }
  // Each tick: a process may have forked since; each gets one SIGTERM.
  for (pid_t pid : tree()) {
    if (killed_ || termed_.insert(pid).second) {
      ::kill(pid, killed_ ? SIGKILL : SIGTERM);
    }
  }
}

bool LimitWatch::stop_leftovers(int64_t t_ms) {
  if (!stopping_since_) {
    return false;  // an ordinary end: what the command left running is its business
  }
  tick(t_ms);
  return !tree().empty();
}

int LimitWatch::exit_status(int command_status) const {
  if (hit_ == "timeout") {
    return kExitTimedOut;
  }
  if (!hit_.empty() && command_status != 0) {
    return kExitLimitHit;
  }
  return command_status;
}

}  // namespace canopy::record
