// record/: launching or attaching, the sampling loop and its clock, signals, exit
// status. Reads /proc only through probe/ and writes only through store/.
//
// TreeSampler keeps the set of live processes of the tree and, on every tick, samples
// them and finds their new children. With the kernel's process events, every fork is
// heard (on_fork). Without them, or once the kernel has dropped some, discovery costs
// in proportion to the tree: it reads the children lists of tree processes that ran
// since the previous tick (a process that did not run cannot have forked), never a
// scan of /proc.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "probe/address_space.h"
#include "probe/cpu_time.h"
#include "probe/process_files.h"
#include "probe/system.h"
#include "probe/task_exits.h"
#include "record/exit_records.h"
#include "record/program_watch.h"
#include "record/tree_cpu_counter.h"
#include "store/writer.h"

namespace canopy::record {

// One live process of the tree as the latest tick left it (see live_processes).
struct LiveProcess {
  int64_t process_id = 0;
  pid_t pid = 0;
  const std::string* name = nullptr;  // valid until the sampler's next call
  int64_t rss_bytes = 0;
  int64_t anon_bytes = 0;
  int64_t swap_bytes = 0;
  int64_t cpu_user_ns = 0;
  int64_t cpu_system_ns = 0;
  int64_t threads = 0;
};

struct SamplerOptions {
  bool pss = false;
  int64_t pss_interval_ms = 1000;
  // Run mode: the recorder is a child subreaper, so orphans of the tree become its
  // children; each tick also reads its own children list to adopt them (unless every
  // fork is heard).
  bool adopt_own_children = false;
  // The recorder hears the kernel's process events (on_fork, on_exec, on_exit): a
  // process seen ending is kept until its exit event brings the exact time and status.
  bool process_events = false;
  // The tree's CPU in one counter (its cgroup). At a tick where it has not moved and
  // it covers every live process, no schedstat is read: none of them ran.
  const TreeCpuCounter* tree_cpu = nullptr;
  // Where /proc is: every process's files, and the machine's meminfo and vmstat. Unit
  // tests point it at a tree of their own (tests/support/fake_proc.h).
  std::string proc_root = "/proc";
  // Where the machine's memory is read, when not from proc_root (a test's own file).
  std::string meminfo_path{};
  // Told of every program of the tree (record --heap), when set.
  ProgramWatch* programs = nullptr;
};

class TreeSampler {
 public:
  TreeSampler(store::Writer& writer, const probe::HostInfo& host, SamplerOptions options);

  // Starts tracking `pid` as a root of the tree. False when it is gone already.
  bool add_root(pid_t pid, int64_t t_ms);

  // One sampling round: sample every live process, discover new ones, write the tick.
  // Returns the tick's time: `t_ms`, or a millisecond later (see seen_at).
  int64_t tick(int64_t t_ms);

  // A child of the recorder has exited and is still a zombie (waitid WNOWAIT): take its
  // final CPU figures (adopting it if it was never seen) before the caller reaps it.
  void on_child_exiting(pid_t pid, int64_t t_ms);
  // The caller reaped `pid` with this wait status.
  void on_child_reaped(pid_t pid, int wait_status, int64_t t_ms);

  // The kernel's process events, at their exact times. A fork by a process of the tree
  // tracks the child at once; one already gone is still recorded, from the events
  // alone (its parent's name, no samples). An exit ends the process with its status,
  // unless the process runs on (another thread exec'd and took the leader's place).
  // `monotonic_ns`: the event's own timestamp, on CLOCK_MONOTONIC (`t_ms` is the
  // recording's time of it).
  void on_fork(pid_t pid, pid_t parent, int64_t t_ms, uint64_t monotonic_ns);
  // `monotonic_ns`: the event's own timestamp, on CLOCK_MONOTONIC.
  void on_exec(pid_t pid, int64_t t_ms, uint64_t monotonic_ns);
  void on_exit(pid_t pid, int wait_status, int64_t t_ms);
  // The kernel's queue of process events overflowed: some forks went unheard. From the
  // next tick on, children are found from the children lists, of every process once.
  void process_events_lost();
  // A taskstats exit record (of any process on the machine): the tree's processes
  // get their exact peak and CPU from it when they end.
  void on_task_exit(const probe::TaskExit& exit, int64_t t_ms) { exit_records_.add(exit, t_ms); }
  int64_t processes_with_exit_records() const { return exit_records_.applied(); }

  // Closes the books: processes still alive are written as running at the end.
  void finish(int64_t t_ms);

  bool alive(pid_t pid) const { return alive_.count(pid) != 0; }
  size_t alive_count() const { return alive_.size(); }
  // The tree's processes still running (and not yet seen ending).
  std::vector<pid_t> alive_pids() const;
  // The same, with their figures as last sampled (no read): for the live figures.
  void live_processes(std::vector<LiveProcess>& out) const;
  // The tree's cumulative CPU as the latest tick wrote it.
  int64_t last_tick_cpu_ns() const { return last_tick_cpu_ns_; }
  // Processes that ended killed by a signal since the last call: the limit watch
  // names the process a limit hit (SIGXCPU: CPU time; SIGKILL: maybe an OOM kill).
  std::vector<store::ProcessRow> take_killed();
  int64_t process_count() const { return process_count_; }
  std::optional<int64_t> process_id(pid_t pid) const;
  // The tree's CPU counter as read by the tick at `t_ms`: nullopt when that tick did
  // not read it (no counter, a failed read, or another tick). Saves the limit watch a
  // second read of the same counter.
  std::optional<int64_t> tree_cpu_read_at(int64_t t_ms) const {
    return last_tree_cpu_ms_ == t_ms ? last_tree_cpu_ns_ : std::nullopt;
  }

 private:
  struct Tracked {
    explicit Tracked(probe::ProcessFiles f) : files(std::move(f)) {}
    probe::ProcessFiles files;
    store::ProcessRow row;
    store::SampleValues values;
    probe::CpuTimeNs cpu;
    std::optional<int64_t> last_run_ns;
    probe::StatmFields last_statm;
    std::optional<int64_t> last_statm_ms;
    int64_t threads = 1;
    uint64_t start_code = 0;  // with start_stack: the program image, to notice exec
    uint64_t start_stack = 0;
    int64_t shmem_bytes = 0;  // from the latest status read
    std::optional<int64_t> last_status_ms;
    std::optional<int64_t> last_pss_ms;
    bool exact_start = false;  // from its fork event; stat's start counts clock ticks
    bool ended_when_tracked = false;  // a zombie already when its files were opened
    bool ran = false;     // since the previous tick: its children list may have changed
    bool exited = false;  // a zombie child of ours, waiting to be reaped
    // Its leader thread has exited and other threads run on (pthread_exit in main, or
    // the others are still being torn down by an exit_group): stat shows a zombie with
    // more than one thread, statm no memory. A tick takes the process to live until its
    // last thread ends, and reads its memory from a live thread's files. (The leader's
    // exit event ends it, even after pthread_exit: that event looks the same as an
    // exit_group's, whose status it carries.)
    bool leader_exited = false;
    // Caught in the middle of an exec, before the kernel set up its arguments, or
    // gone since an exec: the command line reads empty, so it is read again the next
    // time the process runs. Still pending when it ends, its exit record names it.
    bool identity_pending = false;
    // Execs noted (their times) whose events wait for the new command line: written
    // with it, or as the process ends.
    std::vector<int64_t> unwritten_exec_ms;
    // When its name, executable and command line were read from its own files (0:
    // copied from its parent, or not read yet). An exec event stamped before it is
    // already in them.
    uint64_t identity_read_ns = 0;
    // A tick found it exec'd before that exec's event came (the kernel stamps the
    // event once the new image is in place, which a tick can see begin): the next exec
    // event is of that exec, noted already.
    bool exec_event_due = false;
    // A tick found it exec'd before the new image was mapped: the image that comes is
    // that exec's, not another.
    bool exec_awaits_image = false;
    std::optional<int64_t> exit_event_ms;  // its exit event came; a child of ours awaits reaping
    // Its parent's executable and arguments at its fork, for a child whose own could
    // not be read (a zombie, or one exiting, shows neither): its own if it never exec'd.
    std::optional<ExitRecords::ForkIdentity> forked_from;
    // Known to have an address space of its own (or that kcmp cannot tell): not asked
    // again, since a process never comes to share another's.
    bool own_address_space = false;
    // At its latest read while it lived, it ran in its parent's address space
    // (borrows_memory).
    bool borrowed_memory = false;
    // A fork whose command line was its parent's, copied at its fork: how many more of
    // the ticks it runs on read it again, for a title the program writes over its
    // arguments (refresh_title).
    int title_reads_left = 0;
  };
  // A process known from its fork event only (see ghosts_), and its exec events' times.
  struct Ghost {
    store::ProcessRow row;
    std::vector<int64_t> exec_ms;
    std::optional<ExitRecords::ForkIdentity> forked_from;  // as Tracked's
  };
  enum class Outcome { kAlive, kEnded, kZombieChild };

  struct Parent {
    pid_t pid;
    int64_t id;
  };
  // Starts tracking `pid`. Without a parent it is a root (the first one) or an orphan
  // adopted by the recorder. nullptr when it is gone, or no longer the parent's child.
  // `zombie_ok`: an ended process is tracked too (ours to reap, or one whose exit event
  // is on its way). `fork`: the event of its fork, whose time is its exact start and
  // whose parent is taken as given.
  struct ForkEvent {
    int64_t t_ms = 0;
    uint64_t monotonic_ns = 0;
  };
  Tracked* track(pid_t pid, std::optional<Parent> parent, int64_t t_ms, bool zombie_ok = false,
                 std::optional<ForkEvent> fork = std::nullopt);
  std::optional<Parent> tree_parent(pid_t pid) const;
  // The tracked `parent` when the forked `child` still runs its image (not exec'd yet)
  // and the parent's identity is known: the child's is a copy of it.
  const Tracked* same_image_parent(const probe::StatFields& child, pid_t parent) const;
  // kZombieChild: exited, and ours to reap (its exit status comes from wait).
  // `tree_still`: no process of the tree ran since the previous tick.
  Outcome sample(Tracked& p, int64_t t_ms, bool first, bool tree_still = false);
  // Whether the tree's CPU counter stands where it stood at the previous tick, and
  // counts every live process: then none of them ran in between.
  bool tree_stood_still(int64_t t_ms);
  // Memory columns from statm, with status read when it can tell more.
  void read_memory(Tracked& p, const probe::StatmFields& statm, bool memory_changed, int64_t t_ms);
  bool borrows_memory(Tracked& p);
  // `exec_ns`: the exec event's time, 0 when a tick found the exec.
  void note_exec(Tracked& p, const std::string& new_name, int64_t t_ms, uint64_t exec_ns);
  // Reads exe and command line; writes them (and pending exec events) once known.
  void refresh_identity(Tracked& p);
  // A fork's command line once more, while it is its parent's (see title_reads_left).
  void refresh_title(Tracked& p);
  // Its row's name, executable and command line as they now are, and the exec events
  // that waited for them.
  void write_identity(Tracked& p);
  // One "exec" event at each of `times_ms`, of the process as `row` now names it.
  void write_exec_events(const store::ProcessRow& row, std::vector<int64_t>& times_ms);
  void discover(std::vector<pid_t> parents, int64_t t_ms);
  void end(Tracked& p, int64_t t_ms);
  // Writes an ended row, with the kernel's exit record when there is one.
  // `identity_unread`: the row's name, executable and command line are not its own
  // after its last exec (see ExitRecords::on_end).
  // The executable and arguments of `parent`, for a child it forks; none when it is
  // not tracked or they are unread.
  std::optional<ExitRecords::ForkIdentity> fork_identity_of(pid_t parent) const;
  void write_end(store::ProcessRow& row, int64_t t_ms, bool identity_unread,
                 std::optional<ExitRecords::ForkIdentity> forked_from, bool borrowed_memory);
  // A ghost's end: its exec events come after its exit record named it.
  void end_ghost(Ghost& ghost, int64_t t_ms);
  void remember_ended_unreaped(const store::ProcessRow& row);
  // With process events, marks an ended process as waiting for its exit event (true);
  // without them, false: the caller ends it as seen.
  bool awaits_exit_event(Tracked& p);
  // The time to stamp a sample row or a sighting (first or last seen) with. A reader
  // counts a process at the ticks between its first and last sighting, with the rows
  // up to each tick, so these times must fall on the side of each tick that the
  // tick's own total saw. Within a millisecond the order is the order of handling:
  // what is handled after a tick is stamped after it, and tick() moves a tick after
  // what was handled before it. Both shift by a millisecond at most.
  int64_t seen_at(int64_t t_ms) {
    t_ms = std::max(t_ms, last_tick_ms_ + 1);
    latest_seen_ms_ = std::max(latest_seen_ms_, t_ms);
    return t_ms;
  }

  store::Writer& writer_;
  probe::HostInfo host_;
  SamplerOptions options_;
  pid_t self_;  // the recorder: never part of the tree it records
  probe::SystemFile meminfo_;
  // The machine's memory is the tree's context, read about ten times a second at most:
  // at 10 ms, /proc/meminfo was the costliest file of a small tree's tick (8 to 13 µs,
  // the kernel summing every zone's counters; a statm is 1 to 2 µs). A tick in
  // between carries the latest reading. 95, not 100: a tick starts up to a few ms late.
  static constexpr int64_t kMeminfoAtLeastApartMs = 95;
  std::optional<probe::MeminfoFields> meminfo_last_;
  int64_t meminfo_last_ms_ = std::numeric_limits<int64_t>::min() / 2;
  // Whether the kernel may have changed the memory of processes that did not run,
  // from /proc/vmstat, read at most once a tick and only when it saves reads.
  bool kernel_may_have_moved_memory();
  probe::SystemFile vmstat_{options_.proc_root + "/vmstat"};
  std::optional<int64_t> last_memory_moves_;
  std::optional<bool> kernel_moved_memory_;  // this tick's answer, once asked
  static constexpr int64_t kStatmAtLeastEveryMs = 1000;
  // One vmstat read costs about what 18 statm reads do (17.8 µs against 1.0 µs, each
  // pread in a loop on the bench's VM): below that many processes, read their statm.
  static constexpr size_t kVmstatWorthFromProcesses = 18;
  // A title is written soon after the fork (refresh_title): what a fork shows by the
  // last of this many ticks it ran on is its command line, at no more reads.
  static constexpr int kTitleReads = 10;
  std::optional<probe::ProcessFiles> self_files_;  // run mode: our own children list
  // Every fork of the tree reaches on_fork: the children lists need not be read.
  bool forks_all_heard_;
  bool rediscover_all_ = false;  // the next tick reads every process's children list
  std::optional<int64_t> last_tree_cpu_ns_;  // the counter at the previous tick
  std::optional<int64_t> last_tree_cpu_ms_;  // and that tick's time
  int64_t last_members_check_ms_ = std::numeric_limits<int64_t>::min() / 2;
  bool all_members_ = false;  // at that check, the counter covered every live process
  std::unordered_map<pid_t, Tracked> alive_;
  // Processes known from their fork event only: gone before their /proc files could
  // be opened. Kept until their exit event.
  std::unordered_map<pid_t, Ghost> ghosts_;
  // Ended (by their exit event, or seen a zombie by a tick) while another process of
  // the tree was their parent. If that parent dies without reaping one, the zombie
  // passes to us, the subreaper: we reap it, but it is not a new process. Its start
  // tells it from a later process with the same PID, which polling cannot see forked.
  // Kept a minute (by end time).
  std::unordered_map<pid_t, store::ProcessRow> ended_unreaped_;
  std::deque<std::pair<int64_t, pid_t>> ended_unreaped_by_end_;  // (end_ms, pid), to expire them
  // The ended row of the zombie `pid` that passed to us, if it is one we ended.
  store::ProcessRow* inherited_zombie(pid_t pid);
  ExitRecords exit_records_{writer_, options_.programs};
  std::vector<store::ProcessRow> killed_;  // ended by a signal, for take_killed
  int64_t process_count_ = 0;
  int64_t ended_cpu_ns_ = 0;  // CPU of processes that have left the tree
  int64_t last_tick_ms_ = std::numeric_limits<int64_t>::min() / 2;  // none yet
  int64_t last_tick_cpu_ns_ = 0;
  int64_t latest_seen_ms_ = std::numeric_limits<int64_t>::min() / 2;
};

}  // namespace canopy::record
