#include "record/limit_watch.h"

#include <signal.h>

#include "common/text.h"

namespace canopy::record {

void LimitWatch::note(int64_t t_ms, std::optional<int64_t> process_id, const std::string& text) {
  writer_.add_event({t_ms, "limit", process_id, text});
}

void LimitWatch::signal_tree(int signal) {
  // The sampler knows the whole tree, orphans adopted by us included; a process
  // forked since its last look is caught at the next tick.
  for (pid_t pid : sampler_.alive_pids()) {
    if (signal == SIGKILL || termed_.insert(pid).second) {
      ::kill(pid, signal);
    }
  }
}

void LimitWatch::tick(int64_t t_ms) {
  // RLIMIT_CPU: the kernel sends SIGXCPU at the limit, SIGKILL a second later.
  for (const auto& row : sampler_.take_killed()) {
    if (row.exit_signal != SIGXCPU) {
      continue;
    }
    hit_ = hit_.empty() ? "cpu-time" : hit_;
    int64_t cpu_ms = (row.cpu_user_ns.value_or(0) + row.cpu_system_ns.value_or(0)) / 1'000'000;
    note(row.end_ms.value_or(t_ms), row.id,
         row.name + " (pid " + std::to_string(row.pid) + ") used up its CPU time (--cpu-time " +
             format_duration_ms(limits_.cpu_time_ms.value_or(0)) + ", per process): SIGXCPU after " +
             format_duration_ms(cpu_ms) + " of CPU");
  }
  if (!limits_.timeout_ms) {
    return;
  }
  if (!timeout_at_ && t_ms - start_ms_ >= *limits_.timeout_ms) {
    timeout_at_ = t_ms;
    hit_ = "timeout";
    size_t running = sampler_.alive_pids().size();
    note(t_ms, std::nullopt,
         "--timeout " + format_duration_ms(*limits_.timeout_ms) + " is up: SIGTERM to the tree (" +
             std::to_string(running) + (running == 1 ? " process)" : " processes)"));
  }
  if (timeout_at_ && !killed_ && t_ms - *timeout_at_ >= limits_.kill_grace_ms) {
    killed_ = true;
    size_t running = sampler_.alive_pids().size();
    if (running > 0) {
      note(t_ms, std::nullopt,
           "still running after the " + format_duration_ms(limits_.kill_grace_ms) + " grace: SIGKILL to the tree (" +
               std::to_string(running) + (running == 1 ? " process)" : " processes)"));
    }
  }
  if (timeout_at_) {
    // Each tick: a process may have forked between the signal and its death.
    signal_tree(killed_ ? SIGKILL : SIGTERM);
  }
}

bool LimitWatch::stop_leftovers(int64_t t_ms) {
  if (!timeout_at_) {
    return false;  // an ordinary end: daemons the command left are its business
  }
  tick(t_ms);
  return !sampler_.alive_pids().empty();
}

int LimitWatch::exit_status(int command_status) const {
  if (timeout_at_) {
    return kExitTimedOut;
  }
  if (!hit_.empty() && command_status != 0) {
    return kExitLimitHit;
  }
  return command_status;
}

}  // namespace canopy::record
