// The kernel-side filters on the process events' and exit records' sockets, with real
// processes: what they let through, what they drop, and that a tree's fork passes even
// when nobody has read its parent's yet.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <thread>
#include <vector>

#include "probe/proc_events.h"
#include "probe/system.h"
#include "probe/task_exits.h"
#include "probe/tree_filter.h"

namespace canopy::probe {
namespace {

// A child that waits for the word to go (a byte on a pipe), then runs `body` and exits
// with what it returns.
class GatedChild {
 public:
  template <typename Body>
  explicit GatedChild(Body body) {
    int gate[2];
    EXPECT_EQ(::pipe(gate), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(gate[1]);
      char go = 0;
      ::_exit(::read(gate[0], &go, 1) == 1 ? body() : 99);
    }
    ::close(gate[0]);
    gate_ = gate[1];
  }
  ~GatedChild() { EXPECT_EQ(finish(), 0); }
  pid_t pid() const { return pid_; }
  // Lets it run and waits for its end: its exit status.
  int finish() {
    if (gate_ >= 0) {
      EXPECT_EQ(::write(gate_, "g", 1), 1);
      ::close(gate_);
      gate_ = -1;
      int status = 0;
      ::waitpid(pid_, &status, 0);
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 100;
    }
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int gate_ = -1;
  int status_ = 0;
};

// In a child: forks a child that runs /bin/true, waits for it, and writes its PID to
// `report`. 0 when all went well.
int run_true(int report) {
  pid_t child = ::fork();
  if (child == 0) {
    ::execl("/bin/true", "true", nullptr);
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return ::write(report, &child, sizeof child) == sizeof child && WIFEXITED(status) && WEXITSTATUS(status) == 0
             ? 0
             : 1;
}

// In a child: `depth` generations below it, each forked at once by the one before, the
// last running /bin/true. Each writes its child's PID to `report`.
int chain(int depth, int report) {
  if (depth == 1) {
    return run_true(report);
  }
  pid_t child = ::fork();
  if (child == 0) {
    ::_exit(chain(depth - 1, report));
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return ::write(report, &child, sizeof child) == sizeof child && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

std::vector<pid_t> read_pids(int fd) {
  std::vector<pid_t> pids;
  pid_t pid = 0;
  while (::read(fd, &pid, sizeof pid) == sizeof pid) {
    pids.push_back(pid);
  }
  return pids;
}

struct Pipe {
  Pipe() { EXPECT_EQ(::pipe2(fds, O_NONBLOCK), 0); }
  ~Pipe() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  int fds[2] = {-1, -1};
};

TEST(TreeFilter, KeepsTheTreesEventsAndRecordsAndDropsTheRest) {
  // Forked before the filter exists, so not in its set: its processes are the
  // machine's, not the tree's.
  constexpr int kUnrelated = 10;
  Pipe unrelated_pids;
  GatedChild unrelated([&] {
    for (int i = 0; i < kUnrelated; ++i) {
      if (run_true(unrelated_pids.fds[1]) != 0) {
        return 1;
      }
    }
    return 0;
  });

  auto events = ProcEventSocket::open();
  ASSERT_TRUE(events) << events.error().message;
  auto records = TaskExitListener::open(read_host_info().cpu_count);
  if (!records) {
    GTEST_SKIP() << records.error().message;
  }
  auto filter = TreeFilter::create();  // this test process is in its set
  if (!filter) {
    GTEST_SKIP() << filter.error().message;
  }
  ASSERT_TRUE(filter->filter_process_events(events->fd()).ok());
  ASSERT_TRUE(filter->filter_exit_records(records->fd(), records->family()).ok());
  // What the sockets queued before the filters were there: the machine's.
  events->drain([](const ProcEvent&) {});
  records->drain([](const TaskExit&) {});
  const int64_t events_dropped_before = filter->events_dropped();
  const int64_t records_dropped_before = filter->exit_records_dropped();

  // The tree: a child of this process and three generations below it, each forked
  // as soon as its parent runs, long before anything here reads an event.
  Pipe tree_pids;
  GatedChild tree([&] { return chain(3, tree_pids.fds[1]); });
  ASSERT_EQ(unrelated.finish(), 0);
  ASSERT_EQ(tree.finish(), 0);

  std::set<pid_t> tree_set{tree.pid()};
  for (pid_t pid : read_pids(tree_pids.fds[0])) {
    tree_set.insert(pid);
  }
  ASSERT_EQ(tree_set.size(), 4u);
  const std::vector<pid_t> machine = read_pids(unrelated_pids.fds[0]);
  ASSERT_EQ(machine.size(), static_cast<size_t>(kUnrelated));

  std::multiset<pid_t> forks, execs, exits;
  events->drain([&](const ProcEvent& e) {
    EXPECT_TRUE(tree_set.count(e.pid)) << "an event of pid " << e.pid << ", not of the tree";
    (e.kind == ProcEvent::Kind::kFork ? forks : e.kind == ProcEvent::Kind::kExec ? execs : exits).insert(e.pid);
  });
  std::multiset<pid_t> records_of;
  records->drain([&](const TaskExit& exit) {
    EXPECT_TRUE(tree_set.count(exit.tgid)) << "an exit record of pid " << exit.tgid << ", not of the tree";
    records_of.insert(exit.tgid);
  });
  for (pid_t pid : tree_set) {
    SCOPED_TRACE("tree pid " + std::to_string(pid));
    EXPECT_EQ(forks.count(pid), 1u);
    EXPECT_EQ(exits.count(pid), 1u);
    EXPECT_EQ(records_of.count(pid), 1u);
  }
  EXPECT_EQ(execs.size(), 1u);  // the last generation's /bin/true
  // The unrelated child's own exit, and each of its children's fork, exec and exit
  // and exit record (the machine's other processes add to both).
  EXPECT_GE(filter->events_dropped() - events_dropped_before, 3 * kUnrelated + 1);
  EXPECT_GE(filter->exit_records_dropped() - records_dropped_before, kUnrelated + 1);
  EXPECT_EQ(events->lost(), 0);
}

TEST(TreeFilter, AdmitsAProcessAndItsDescendants) {
  Pipe pids;
  GatedChild root([&] { return chain(2, pids.fds[1]); });  // before the filter
  GatedChild other([] { return 0; });
  auto filter = TreeFilter::create();
  if (!filter) {
    GTEST_SKIP() << filter.error().message;
  }
  EXPECT_TRUE(filter->admitted(::getpid()));  // the recorder itself: its forks are the tree's
  EXPECT_FALSE(filter->admitted(root.pid()));
  filter->admit_tree(root.pid());
  EXPECT_TRUE(filter->admitted(root.pid()));
  EXPECT_FALSE(filter->admitted(other.pid()));
}

TEST(ProcEventSocket, DropUnusedKindsKeepsForksExecsAndExits) {
  auto filtered = ProcEventSocket::open();
  auto unfiltered = ProcEventSocket::open();
  ASSERT_TRUE(filtered) << filtered.error().message;
  ASSERT_TRUE(unfiltered) << unfiltered.error().message;
  ASSERT_TRUE(filtered->drop_unused_kinds().ok());
  filtered->drain([](const ProcEvent&) {});
  unfiltered->drain([](const ProcEvent&) {});
  const int64_t filtered_before = filtered->received();
  const int64_t unfiltered_before = unfiltered->received();

  // Events of kinds the recorder never reads: renamings (comm) and threads' forks.
  constexpr int kRenames = 1000;
  constexpr int kThreads = 100;
  char name[16] = {};
  ::prctl(PR_GET_NAME, name);
  for (int i = 0; i < kRenames; ++i) {
    ::prctl(PR_SET_NAME, i % 2 ? "canopy-a" : "canopy-b");
  }
  ::prctl(PR_SET_NAME, name);
  for (int i = 0; i < kThreads; ++i) {
    std::thread([] {}).join();
  }
  Pipe pid;
  GatedChild sentinel([&] { return run_true(pid.fds[1]); });
  ASSERT_EQ(sentinel.finish(), 0);
  const pid_t child = read_pids(pid.fds[0]).at(0);

  // Both have the sentinel's child's fork, exec and exit.
  for (auto* socket : {&*filtered, &*unfiltered}) {
    int kinds = 0;
    socket->drain([&](const ProcEvent& e) {
      if (e.pid == child) {
        kinds |= 1 << static_cast<int>(e.kind);
      }
    });
    EXPECT_EQ(kinds, 0b111);
  }
  // The unfiltered one had the renamings and the thread forks besides.
  const int64_t filtered_count = filtered->received() - filtered_before;
  const int64_t unfiltered_count = unfiltered->received() - unfiltered_before;
  EXPECT_GE(unfiltered_count - filtered_count, kRenames + kThreads - 50)
      << unfiltered_count << " unfiltered, " << filtered_count << " filtered";
}

}  // namespace
}  // namespace canopy::probe
