// The kernel's taskstats exit records, matched to the tree's processes. A record is
// exact and final: the process's peak resident memory (hiwater), its CPU times, and
// for a process that ended before it could be sampled, the only figures there are.
// Its CPU replaces the samples' whole, user and system together: the two split it
// differently (samples count all as user until a clock tick lands), so the larger of
// each would add up to time the process never ran. Its name is the process's after
// its last exec: the row takes it when canopy could not read the process's own.
//
// Records and process events travel on separate sockets, so either can be read
// first: a record waits here a while for its process to end, and an ended row waits a
// while for late records (each thread sends its own), and is written again when one
// comes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "probe/task_exits.h"
#include "record/program_watch.h"
#include "store/writer.h"

namespace canopy::record {

class ExitRecords {
 public:
  // What a forked child runs until it execs: its parent's executable and command line,
  // as they were at the fork.
  struct ForkIdentity {
    std::string exe = "";
    std::vector<std::string> cmdline = {};
  };

  // `programs` (nullable) hears of each process whose record says it never exec'd.
  ExitRecords(store::Writer& writer, ProgramWatch* programs) : writer_(writer), programs_(programs) {}

  // A record from the kernel, of any process on the machine.
  void add(const probe::TaskExit& exit, int64_t t_ms);
  // `row` has ended and is about to be written: it takes what the records gave so
  // far, and waits for any record still to come. `identity_unread`: its name,
  // executable and command line are not its own after its last exec (it was gone
  // before canopy could read them), so the record names it. `forked_from`: its
  // parent's at its fork, which are its own if its record says it never exec'd.
  // `borrowed_memory`: its last read found it in its parent's address space (a clone
  // that shares it, TreeSampler::borrows_memory); if its record says it never exec'd
  // since, it ended there, and the record's peak is that address space's, not its own.
  void on_end(store::ProcessRow& row, int64_t t_ms, bool identity_unread,
              std::optional<ForkIdentity> forked_from = std::nullopt, bool borrowed_memory = false);
  // Forgets records and rows older than a couple of seconds: nothing late comes
  // that late, and a reused pid must not be mistaken for an ended one.
  void expire(int64_t t_ms);
  // Ended processes that got the kernel's figures.
  int64_t applied() const { return applied_; }
  // The CPU the records added to what the ended processes' samples had counted (a
  // process gone before its first sample has only its record's).
  int64_t cpu_added_ns() const { return cpu_added_ns_; }

 private:
  struct Totals {
    std::string name;  // the leader thread's comm: the process's after its last exec
    bool never_execd = false;  // the leader's record said so
    int64_t peak_rss_bytes = 0;
    int64_t cpu_user_ns = 0;  // the threads' records, summed
    int64_t cpu_system_ns = 0;
    bool cpu_from_ticks = false;
    std::optional<int64_t> group_cpu_ns;  // every thread's, once the last one's came
    int64_t t_ms = 0;  // when the newest record came
  };
  struct Ended {
    store::ProcessRow row;
    Totals totals;
    bool identity_unread = false;
    std::optional<ForkIdentity> forked_from;
    bool borrowed_memory = false;
    bool counted = false;  // in applied_
  };
  static void add_to(Totals& totals, const probe::TaskExit& exit, int64_t t_ms);
  // Whether the name changed (the row's exec columns need writing again).
  bool apply(const Totals& totals, store::ProcessRow& row, bool identity_unread,
             const std::optional<ForkIdentity>& forked_from, bool borrowed_memory);
  void apply_cpu(const Totals& totals, store::ProcessRow& row);

  store::Writer& writer_;
  ProgramWatch* programs_;
  std::unordered_map<pid_t, Totals> records_;  // by process, not yet claimed by an end
  std::unordered_map<pid_t, Ended> ended_;     // ended rows open to late records
  int64_t applied_ = 0;
  int64_t cpu_added_ns_ = 0;
  int64_t last_expired_ms_ = 0;
};

}  // namespace canopy::record
