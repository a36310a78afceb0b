// Launch::fork_gated with a cgroup v2 directory: the child is born inside it
// (clone3 CLONE_INTO_CGROUP), before it runs anything. Uses the machine's own v2
// hierarchy, which needs no controllers for membership.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/scoped_resource.h"
#include "probe/cgroup_files.h"
#include "record/launcher.h"

namespace canopy::record {
namespace {

TEST(LaunchIntoCgroup, TheGatedChildIsAlreadyInside) {
  auto mounts = probe::read_small_file("/proc/self/mounts");
  auto self = probe::read_small_file("/proc/self/cgroup");
  ASSERT_TRUE(mounts && self);
  auto mount = probe::cgroup_v2_mount(*mounts);
  auto own = probe::cgroup_v2_path(*self);
  if (!mount || !own) {
    GTEST_SKIP() << "no cgroup v2 hierarchy here";
  }
  std::string relative = (*own == "/" ? "" : *own) + "/canopy-launch-test-" + std::to_string(::getpid());
  std::string directory = *mount + relative;
  if (::mkdir(directory.c_str(), 0755) != 0) {
    GTEST_SKIP() << directory << ": " << std::strerror(errno);
  }
  {
    ScopedFd cgroup(::open(directory.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(cgroup);
    ChildSetup setup;
    setup.cgroup_fd = cgroup.get();
    auto launch = Launch::fork_gated({"true"}, setup);
    ASSERT_TRUE(launch) << launch.error().message;
    auto membership = probe::read_small_file("/proc/" + std::to_string(launch->pid()) + "/cgroup");
    ASSERT_TRUE(membership);
    EXPECT_EQ(probe::cgroup_v2_path(*membership), relative);
    launch->abort();
  }
  EXPECT_EQ(::rmdir(directory.c_str()), 0) << std::strerror(errno);
}

TEST(LaunchIntoCgroup, ABadDirectoryIsTheRecordersError) {
  ScopedFd not_a_cgroup(::open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC));
  ChildSetup setup;
  setup.cgroup_fd = not_a_cgroup.get();
  auto launch = Launch::fork_gated({"true"}, setup);
  ASSERT_FALSE(launch);
  EXPECT_EQ(launch.error().message.rfind("cannot start the command: clone3 into its cgroup: ", 0), 0u)
      << launch.error().message;
}

}  // namespace
}  // namespace canopy::record
