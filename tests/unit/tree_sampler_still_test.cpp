// The sampler with a counter of the whole tree's CPU (the cgroup's, in a recording):
// at a tick where it stood still, no process is asked whether it ran. A real child
// spins all along, and the counter here is made to say it did not: what the sampler
// then writes shows which reads it skipped, and which it still made.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cstring>

#include "probe/system.h"
#include "record/tree_sampler.h"
#include "store/reader.h"
#include "support/temp_dir.h"

namespace canopy::record {
namespace {

using canopy::testing::TempDir;

constexpr int64_t kTouchedBytes = 32 << 20;

// A child that spins on the CPU from its start, and touches 32 MiB when told.
class Spinner {
 public:
  Spinner() {
    int pipe_fds[2];
    EXPECT_EQ(::pipe(pipe_fds), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(pipe_fds[1]);
      ::fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
      char byte = 0;
      volatile uint64_t sink = 0;
      for (uint64_t spins = 0;; ++spins) {
        sink = sink + spins;
        if (spins % (1 << 20) == 0 && ::read(pipe_fds[0], &byte, 1) == 1) {
          auto* memory = static_cast<char*>(
              ::mmap(nullptr, kTouchedBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
          std::memset(memory, 1, kTouchedBytes);
        }
      }
    }
    ::close(pipe_fds[0]);
    tell_ = pipe_fds[1];
  }
  ~Spinner() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    ::close(tell_);
  }
  pid_t pid() const { return pid_; }
  // Returns once the child's resident memory shows all 32 MiB.
  void touch_memory() {
    auto files = probe::ProcessFiles::open(pid_);
    ASSERT_TRUE(files);
    auto before = files->read_statm();
    ASSERT_TRUE(before);
    ASSERT_EQ(::write(tell_, "m", 1), 1);
    const int64_t page = ::sysconf(_SC_PAGESIZE);
    for (int i = 0; i < 2000; ++i) {
      auto now = files->read_statm();
      ASSERT_TRUE(now);
      if ((now->resident_pages - before->resident_pages) * page >= kTouchedBytes) {
        return;
      }
      ::usleep(5000);
    }
    FAIL() << "pid " << pid_ << " did not touch its memory";
  }

 private:
  pid_t pid_ = -1;
  int tell_ = -1;
};

class StillCounter : public TreeCpuCounter {
 public:
  std::optional<int64_t> tree_cpu_ns() const override { return cpu_ns; }
  std::vector<pid_t> tree_cpu_members() const override {
    ++member_reads;
    return members;
  }
  int64_t cpu_ns = 1'000'000;
  std::vector<pid_t> members;
  mutable int member_reads = 0;
};

// The tree's CPU and resident memory at each tick, as the file has them.
std::vector<store::TickRow> ticks_of(const std::string& path) {
  auto reader = store::Reader::open(path);
  EXPECT_TRUE(reader) << reader.error().message;
  auto ticks = reader->ticks();
  EXPECT_TRUE(ticks) << ticks.error().message;
  return *ticks;
}

// Waits until `pid` has used at least `ns` more CPU, by its own schedstat: what the
// sampler reads after that is certain to differ from what it read before.
void let_it_run(pid_t pid, int64_t ns) {
  auto files = probe::ProcessFiles::open(pid);
  ASSERT_TRUE(files);
  auto from = files->read_run_ns();
  ASSERT_TRUE(from);
  for (int i = 0; i < 2000; ++i) {
    auto now = files->read_run_ns();
    ASSERT_TRUE(now);
    if (*now - *from >= ns) {
      return;
    }
    ::usleep(5000);
  }
  FAIL() << "pid " << pid << " did not run";
}

TEST(TreeSamplerStill, AStillCounterSkipsAskingEachProcessWhetherItRan) {
  TempDir dir;
  std::string path = dir.file("still.canopy");
  Spinner child;
  StillCounter counter;
  counter.members = {child.pid(), 1};
  {
    auto writer = store::Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    TreeSampler sampler(*writer, probe::read_host_info(), {.tree_cpu = &counter});
    let_it_run(child.pid(), 20'000'000);
    ASSERT_TRUE(sampler.add_root(child.pid(), 0));
    sampler.tick(100);  // the counter's first reading: nothing to compare with
    let_it_run(child.pid(), 20'000'000);
    sampler.tick(200);  // it stood still: the child's CPU is not read
    child.touch_memory();
    sampler.tick(300);  // its memory is still read, as for a process that did not run
    counter.cpu_ns += 1000;
    let_it_run(child.pid(), 20'000'000);
    sampler.tick(400);  // it moved: everything is read
    for (int64_t t = 500; t <= 1300; t += 100) {
      sampler.tick(t);
    }
    sampler.finish(1300);
    ASSERT_TRUE(writer->finish());
  }
  auto ticks = ticks_of(path);
  ASSERT_EQ(ticks.size(), 13u);
  EXPECT_GT(ticks[0].cpu_ns, 0);
  EXPECT_EQ(ticks[1].cpu_ns, ticks[0].cpu_ns);
  EXPECT_GE(ticks[2].rss_bytes - ticks[1].rss_bytes, kTouchedBytes);
  EXPECT_GE(ticks[3].cpu_ns - ticks[1].cpu_ns, 40'000'000);
  // The members are read at the first tick the counter stood still, then once a
  // second: at 200 ms and at 1,200 ms.
  EXPECT_EQ(counter.member_reads, 2);
}

TEST(TreeSamplerStill, AProcessTheCounterDoesNotCoverIsAskedAsBefore) {
  TempDir dir;
  std::string path = dir.file("outside.canopy");
  Spinner child;
  StillCounter counter;
  counter.members = {1};  // moved out of the cgroup by someone else
  {
    auto writer = store::Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    TreeSampler sampler(*writer, probe::read_host_info(), {.tree_cpu = &counter});
    let_it_run(child.pid(), 20'000'000);
    ASSERT_TRUE(sampler.add_root(child.pid(), 0));
    sampler.tick(100);
    let_it_run(child.pid(), 20'000'000);
    sampler.tick(200);
    sampler.finish(200);
    ASSERT_TRUE(writer->finish());
  }
  auto ticks = ticks_of(path);
  ASSERT_EQ(ticks.size(), 2u);
  EXPECT_GE(ticks[1].cpu_ns - ticks[0].cpu_ns, 20'000'000);
}

}  // namespace
}  // namespace canopy::record
