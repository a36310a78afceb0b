#include "record/exit_records.h"

#include <algorithm>

namespace canopy::record {
namespace {

// Far longer than a record can trail its exit event (both leave the kernel within
// microseconds of each other; the recorder reads both every tick).
constexpr int64_t kKeepMs = 2000;
constexpr int64_t kExpireEveryMs = 500;

}  // namespace

void ExitRecords::add_to(Totals& totals, const probe::TaskExit& exit, int64_t t_ms) {
  // Each thread's record holds its own CPU; the peak is the process's, shared.
  if (exit.tid == exit.tgid || totals.name.empty()) {
    totals.name = exit.name;
  }
  totals.peak_rss_bytes = std::max(totals.peak_rss_bytes, exit.peak_rss_bytes);
  totals.cpu_user_ns += exit.cpu_user_ns;
  totals.cpu_system_ns += exit.cpu_system_ns;
  totals.t_ms = t_ms;
}

bool ExitRecords::apply(const Totals& totals, store::ProcessRow& row) {
  row.hwm_bytes = std::max(row.hwm_bytes.value_or(0), totals.peak_rss_bytes);
  // Exact and final, where samples stop at the last tick before the end.
  row.cpu_user_ns = std::max(row.cpu_user_ns.value_or(0), totals.cpu_user_ns);
  row.cpu_system_ns = std::max(row.cpu_system_ns.value_or(0), totals.cpu_system_ns);
  if (!totals.name.empty() && totals.name != row.name) {
    row.name = totals.name;  // an exec nobody saw: the name is all the record has
    return true;
  }
  return false;
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
  if (apply(e.totals, e.row)) {
    writer_.update_process_exec(e.row);
  }
  writer_.update_process_end(e.row);
}

void ExitRecords::on_end(store::ProcessRow& row, int64_t t_ms) {
  Ended ended{{}, {}, false};
  // A record older than the process is of an earlier process with the same pid.
  if (auto it = records_.find(row.pid); it != records_.end() && it->second.t_ms >= row.start_ms) {
    ended.totals = std::move(it->second);
    records_.erase(it);
    ended.counted = true;
    ++applied_;
    if (apply(ended.totals, row)) {
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
