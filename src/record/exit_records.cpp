#include "record/exit_records.h"

#include <algorithm>

namespace canopy::record {
namespace {

// Far longer than a record can trail its exit event (both leave the kernel within
// microseconds of each other; the recorder reads both every tick).
constexpr int64_t kKeepMs = 2000;
constexpr int64_t kExpireEveryMs = 500;
// A follower of the recording counts on an ended row settling within this (store/recording.h).
static_assert(kKeepMs + kExpireEveryMs < store::kProcessRowSettleMs);

}  // namespace

void ExitRecords::add_to(Totals& totals, const probe::TaskExit& exit, int64_t t_ms) {
  // Each thread's record holds its own CPU; the peak is the process's, shared. Only
  // the leader's name is the process's: another thread's may be its own ("worker-3").
  if (exit.tid == exit.tgid) {
    totals.name = exit.name;
    totals.never_execd = exit.forked_without_exec;
  }
  totals.peak_rss_bytes = std::max(totals.peak_rss_bytes, exit.peak_rss_bytes);
  totals.cpu_user_ns += exit.cpu_user_ns;
  totals.cpu_system_ns += exit.cpu_system_ns;
  totals.cpu_from_ticks = totals.cpu_from_ticks || exit.cpu_from_ticks;
  if (exit.group_cpu_ns) {
    totals.group_cpu_ns = exit.group_cpu_ns;
  }
  totals.t_ms = t_ms;
}

void ExitRecords::apply_cpu(const Totals& totals, store::ProcessRow& row) {
  int64_t user_ns = totals.cpu_user_ns;
  int64_t system_ns = totals.cpu_system_ns;
  if (totals.group_cpu_ns) {
    // Every thread's, in the ratio of the threads' records at hand: those of threads
    // that ended long before the process are no longer kept (expire()).
    const int64_t threads_ns = user_ns + system_ns;
    system_ns = threads_ns > 0 ? static_cast<int64_t>(static_cast<__int128>(*totals.group_cpu_ns) * system_ns / threads_ns)
                               : 0;
    user_ns = *totals.group_cpu_ns - system_ns;
  }
  const int64_t sampled_ns = row.cpu_user_ns.value_or(0) + row.cpu_system_ns.value_or(0);
  if (totals.cpu_from_ticks && user_ns + system_ns < sampled_ns) {
    return;  // whole ticks undercount what the scheduler's runtime in the samples says
  }
  row.cpu_user_ns = user_ns;
  row.cpu_system_ns = system_ns;
  cpu_added_ns_ += user_ns + system_ns - sampled_ns;
}

bool ExitRecords::apply(const Totals& totals, store::ProcessRow& row, bool identity_unread,
                        const std::optional<ForkIdentity>& forked_from, bool borrowed_memory) {
  // The peak of the address space it ended in: its parent's, when it last ran there and
  // never exec'd (one that exec'd since, between two reads, ended in its own).
  if (!(borrowed_memory && totals.never_execd)) {
    row.hwm_bytes = std::max(row.hwm_bytes.value_or(0), totals.peak_rss_bytes);
  }
  apply_cpu(totals, row);
  if (totals.never_execd && programs_ && row.parent_id) {
    programs_->on_never_execd(row.id, *row.parent_id);
  }
  if (totals.never_execd && identity_unread && forked_from) {
    // It ran its parent's program to its end: the parent's executable and arguments are
    // its own, and the record has its name (prctl may have changed it).
    const bool changed = row.exe != forked_from->exe || row.cmdline != forked_from->cmdline ||
                         row.name != totals.name || row.named_from_exit_record;
    row.exe = forked_from->exe;
    row.cmdline = forked_from->cmdline;
    row.name = totals.name;
    row.named_from_exit_record = false;
    return changed;
  }
  const bool named = !identity_unread || row.named_from_exit_record;
  if (totals.name.empty() || (named && totals.name == row.name)) {
    return false;  // no leader's record yet, or named already
  }
  // Gone before its own name, executable and arguments could be read, or exec'd after
  // they were with no exec event to tell (polling): the executable and arguments at
  // hand are an earlier image's (its parent's, copied at the fork), or none.
  row.name = totals.name;
  row.exe.clear();
  row.cmdline.clear();
  row.named_from_exit_record = true;
  return true;
}

void ExitRecords::add(const probe::TaskExit& exit, int64_t t_ms) {
  auto ended = ended_.find(exit.tgid);
  if (ended == ended_.end()) {
    add_to(records_[exit.tgid], exit, t_ms);
    return;
  }
  Ended& e = ended->second;
  add_to(e.totals, exit, t_ms);
  if (!e.counted) {
    e.counted = true;
    ++applied_;
  }
  if (apply(e.totals, e.row, e.identity_unread, e.forked_from, e.borrowed_memory)) {
    writer_.update_process_exec(e.row);
  }
  writer_.update_process_end(e.row);
}

void ExitRecords::on_end(store::ProcessRow& row, int64_t t_ms, bool identity_unread,
                         std::optional<ForkIdentity> forked_from, bool borrowed_memory) {
  Ended ended{{}, {}, identity_unread, std::move(forked_from), borrowed_memory, false};
  // A record older than the process is of an earlier process with the same pid.
  if (auto it = records_.find(row.pid); it != records_.end() && it->second.t_ms >= row.start_ms) {
    ended.totals = std::move(it->second);
    records_.erase(it);
    ended.counted = true;
    ++applied_;
    if (apply(ended.totals, row, identity_unread, ended.forked_from, borrowed_memory)) {
      writer_.update_process_exec(row);
    }
  }
  ended.totals.t_ms = t_ms;
  ended.row = row;
  ended_[row.pid] = std::move(ended);
}

void ExitRecords::expire(int64_t t_ms) {
  // Not every tick: walking both maps each tick was about 6% of the recorder's
  // user-space cycles on a build at 10 ms (their nodes are cold after a sleep). An
  // entry so lives between kKeepMs and kKeepMs + kExpireEveryMs.
  if (t_ms - last_expired_ms_ < kExpireEveryMs) {
    return;
  }
  last_expired_ms_ = t_ms;
  std::erase_if(records_, [&](const auto& entry) { return t_ms - entry.second.t_ms > kKeepMs; });
  std::erase_if(ended_, [&](const auto& entry) { return t_ms - entry.second.totals.t_ms > kKeepMs; });
}

}  // namespace canopy::record
