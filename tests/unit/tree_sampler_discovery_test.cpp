// How the sampler finds new processes: from the kernel's fork events while it hears
// all of them, and from the children lists again, of every process, once the kernel
// has dropped some. A real parent forks real children; the sampler writes a real file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe/system.h"
#include "record/tree_sampler.h"
#include "support/temp_dir.h"

namespace canopy::record {
namespace {

using canopy::testing::TempDir;

// A parent that waits for a byte on `go`, then forks `children` that sleep, then
// writes a byte to `ready`. Killed as a process group at the end.
class ForkingParent {
 public:
  explicit ForkingParent(int children) {
    int go[2], ready[2];
    EXPECT_EQ(::pipe(go), 0);
    EXPECT_EQ(::pipe(ready), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      char byte = 0;
      if (::read(go[0], &byte, 1) != 1) {
        ::_exit(1);
      }
      for (int i = 0; i < children; ++i) {
        if (::fork() == 0) {
          ::pause();
          ::_exit(0);
        }
      }
      (void)!::write(ready[1], "r", 1);
      ::pause();
      ::_exit(0);
    }
    ::setpgid(pid_, pid_);
    ::close(go[0]);
    ::close(ready[1]);
    go_ = go[1];
    ready_ = ready[0];
  }
  ~ForkingParent() {
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    ::close(go_);
    ::close(ready_);
  }
  pid_t pid() const { return pid_; }
  void fork_children() {
    char byte = 0;
    ASSERT_EQ(::write(go_, "g", 1), 1);
    ASSERT_EQ(::read(ready_, &byte, 1), 1);
  }

 private:
  pid_t pid_ = -1;
  int go_ = -1;
  int ready_ = -1;
};

TEST(TreeSamplerDiscovery, ChildrenListsAreReadOnlyOnceForkEventsWereLost) {
  TempDir dir;
  auto writer = store::Writer::create(dir.file("a.canopy"), false);
  ASSERT_TRUE(writer) << writer.error().message;
  // With process events on; none is fed to it here, as if the kernel had dropped them.
  TreeSampler sampler(*writer, probe::read_host_info(), {.process_events = true});
  ForkingParent parent(3);
  ASSERT_TRUE(sampler.add_root(parent.pid(), 0));
  parent.fork_children();

  // Every fork is taken to be heard: the ticks do not read children lists.
  sampler.tick(100);
  EXPECT_EQ(sampler.alive_count(), 1u);
  sampler.tick(200);  // the parent has not run since: nothing would be read anyway
  EXPECT_EQ(sampler.alive_count(), 1u);

  // Some were lost: the next tick reads the lists of every process, the parent's too,
  // though it has not run since the previous tick.
  sampler.process_events_lost();
  sampler.tick(300);
  EXPECT_EQ(sampler.alive_count(), 4u);
  EXPECT_EQ(sampler.process_count(), 4);
  ASSERT_TRUE(writer->finish());
}

}  // namespace
}  // namespace canopy::record
