// The cgroup v2 path of CommandCgroup, on a directory laid out as a delegated v2
// subtree (this machine's controllers are all on v1, so the kernel's own v2 files
// cannot be had here): which ancestor holds the command's cgroup, the limits written,
// the counters read, and what a killed recorder left behind cleared.
#include "record/command_cgroup.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "support/temp_dir.h"

namespace canopy::record {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string read(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// /ROOT delegates cpu, memory and pids; /ROOT/user.slice memory only; the recorder
// sits in /ROOT/user.slice/me.scope, which delegates nothing.
class FakeV2 : public ::testing::Test {
 protected:
  void SetUp() override {
    write(root() / "cgroup.subtree_control", "cpu memory pids\n");
    write(root() / "user.slice/cgroup.subtree_control", "memory\n");
    write(root() / "user.slice/me.scope/cgroup.subtree_control", "");
  }
  fs::path root() const { return dir_.path(); }
  std::string mounts() const { return "sysfs /sys sysfs rw 0 0\ncgroup2 " + dir_.path() + " cgroup2 rw 0 0\n"; }
  static std::string self() { return "0::/user.slice/me.scope\n"; }
  static std::string ours() { return "canopy-" + std::to_string(::getpid()); }

  // The files the kernel would make in a new cgroup, with counters as after a run.
  void populate(const fs::path& cgroup) {
    for (const char* file : {"memory.max", "memory.swap.max", "cpu.max", "pids.max", "cgroup.procs"}) {
      write(cgroup / file, "");
    }
    write(cgroup / "memory.current", "1048576\n");
    write(cgroup / "memory.peak", "104857600\n");
    write(cgroup / "cpu.stat", "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n");
    write(cgroup / "memory.events", "low 0\nhigh 0\nmax 7\noom 1\noom_kill 1\n");
    write(cgroup / "pids.events", "max 3\n");
  }
  // Emptied, as the kernel's would be once its last member left: then it can go.
  static void empty(const fs::path& cgroup) {
    for (const auto& entry : fs::directory_iterator(cgroup)) {
      fs::remove(entry.path());
    }
  }

  canopy::testing::TempDir dir_;
};

TEST_F(FakeV2, MemoryOnlyGoesUnderTheNearestAncestorThatDelegatesIt) {
  fs::path cgroup = root() / "user.slice" / ours();
  populate(cgroup);
  ResourceLimits limits;
  limits.memory_bytes = 64 << 20;
  {
    auto created = CommandCgroup::create(limits, mounts(), self());
    ASSERT_TRUE(created) << created.error().message;
    EXPECT_EQ(created->version(), 2);
    EXPECT_EQ(created->description(), "cgroup v2 /user.slice/" + ours());
    EXPECT_GE(created->clone_fd(), 0);
    EXPECT_EQ(read(cgroup / "memory.max"), "67108864");
    EXPECT_EQ(read(cgroup / "memory.swap.max"), "0");  // no --swap-limit: no swap
    EXPECT_EQ(read(cgroup / "cpu.max"), "");

    // What the limit watch reads: memory.current every tick, the counters when due.
    auto memory = created->memory_bytes();
    ASSERT_TRUE(memory);
    EXPECT_EQ(*memory, 1 << 20);
    CgroupReading counters;
    created->read_counters(counters);
    EXPECT_EQ(counters.memory_peak_bytes, 100 << 20);
    EXPECT_EQ(counters.oom_kills, 1);
    EXPECT_EQ(counters.memory_limit_hits, 7);
    // No --max-processes: pids.events (which says 3 here) cannot move, so it is not
    // read on every tick.
    EXPECT_EQ(counters.pids_limit_hits, 0);
    EXPECT_TRUE(created->members().empty());
    // What the sampler asks each tick: the CPU counter alone, and (once a second) the
    // members it covers, both from the one v2 directory. (Emptied again before the
    // end, which would otherwise stop those PIDs.)
    EXPECT_EQ(created->tree_cpu_ns(), 1'500'000'000);
    write(cgroup / "cgroup.procs", "4242\n4243\n");
    EXPECT_EQ(created->tree_cpu_members(), (std::vector<pid_t>{4242, 4243}));
    write(cgroup / "cgroup.procs", "");
    empty(cgroup);
  }
  EXPECT_FALSE(fs::exists(cgroup)) << "left behind";
}

TEST_F(FakeV2, ACpuLimitNeedsAnAncestorThatDelegatesCpuToo) {
  fs::path cgroup = root() / ours();
  populate(cgroup);
  ResourceLimits limits;
  limits.cpu_percent = 10;
  limits.max_processes = 4;
  limits.swap_bytes = 0;
  auto created = CommandCgroup::create(limits, mounts(), self());
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ(created->description(), "cgroup v2 /" + ours());
  EXPECT_EQ(read(cgroup / "cpu.max"), "10000 100000");
  EXPECT_EQ(read(cgroup / "pids.max"), "4");
  EXPECT_EQ(read(cgroup / "memory.max"), "");  // no --memory-limit: the kernel's "max" stays
  CgroupReading counters;
  created->read_counters(counters);
  EXPECT_EQ(counters.pids_limit_hits, 3);  // with --max-processes, its hits are read
  empty(cgroup);
}

TEST_F(FakeV2, EmptyCgroupsOfDeadRecordersAreRemoved) {
  pid_t dead = 999'999;
  while (::kill(dead, 0) == 0 || errno != ESRCH) {
    --dead;
  }
  fs::create_directories(root() / "user.slice" / ("canopy-" + std::to_string(dead)));
  fs::create_directories(root() / "user.slice/canopy-1");  // its recorder may still run
  fs::path cgroup = root() / "user.slice" / ours();
  populate(cgroup);
  auto created = CommandCgroup::create({}, mounts(), self());
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_FALSE(fs::exists(root() / "user.slice" / ("canopy-" + std::to_string(dead))));
  EXPECT_TRUE(fs::exists(root() / "user.slice/canopy-1"));
  empty(cgroup);
}

TEST_F(FakeV2, NoDelegatedMemoryAndNoV1SaysWhyForBoth) {
  write(root() / "cgroup.subtree_control", "cpu pids\n");
  write(root() / "user.slice/cgroup.subtree_control", "");
  auto created = CommandCgroup::create({}, mounts(), self());
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().message, "cgroup v2: " + (root() / "user.slice/me.scope").string() +
                                         " and its parents do not delegate the memory controller; cgroup v1: "
                                         "no memory hierarchy");
}

}  // namespace
}  // namespace canopy::record
