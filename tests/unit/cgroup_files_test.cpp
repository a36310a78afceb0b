// The cgroup parsers on text as a hybrid (v1 + v2) Debian 12 machine and a pure v2
// systemd machine print it.
#include "probe/cgroup_files.h"

#include <gtest/gtest.h>

namespace canopy::probe {
namespace {

constexpr std::string_view kHybridProcCgroup =
    "9:name=systemd:/\n"
    "8:pids:/\n"
    "4:memory:/process_api/6b854690b0b25711960e33cd2d1af303\n"
    "2:cpu,cpuacct:/build\n"
    "0::/\n";

constexpr std::string_view kHybridMounts =
    "tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0\n"
    "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,relatime,cpu,cpuacct 0 0\n"
    "cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n"
    "cgroup /sys/fs/cgroup/systemd cgroup rw,relatime,name=systemd 0 0\n"
    "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";

TEST(CgroupPaths, HybridMachine) {
  EXPECT_EQ(cgroup_v1_path(kHybridProcCgroup, "memory"), "/process_api/6b854690b0b25711960e33cd2d1af303");
  EXPECT_EQ(cgroup_v1_path(kHybridProcCgroup, "cpuacct"), "/build");
  EXPECT_EQ(cgroup_v1_path(kHybridProcCgroup, "cpu"), "/build");
  EXPECT_EQ(cgroup_v1_path(kHybridProcCgroup, "freezer"), std::nullopt);
  // "name=systemd" is not a controller called "systemd", nor is "cpu" a prefix match.
  EXPECT_EQ(cgroup_v1_path(kHybridProcCgroup, "systemd"), std::nullopt);
  EXPECT_EQ(cgroup_v1_path(kHybridProcCgroup, "cpuac"), std::nullopt);
  EXPECT_EQ(cgroup_v2_path(kHybridProcCgroup), "/");
}

TEST(CgroupPaths, PureV2PathWithColons) {
  constexpr std::string_view text = "0::/user.slice/user-1000.slice/app:odd.scope\n";
  EXPECT_EQ(cgroup_v2_path(text), "/user.slice/user-1000.slice/app:odd.scope");
  EXPECT_EQ(cgroup_v1_path(text, "memory"), std::nullopt);
  EXPECT_EQ(cgroup_v2_path(""), std::nullopt);
  EXPECT_EQ(cgroup_v2_path("garbage\n"), std::nullopt);
}

TEST(CgroupMounts, HybridMachine) {
  EXPECT_EQ(cgroup_v2_mount(kHybridMounts), "/sys/fs/cgroup/unified");
  EXPECT_EQ(cgroup_v1_mount(kHybridMounts, "memory"), "/sys/fs/cgroup/memory");
  EXPECT_EQ(cgroup_v1_mount(kHybridMounts, "cpuacct"), "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(cgroup_v1_mount(kHybridMounts, "pids"), std::nullopt);
  // The tmpfs above them holds no controller, whatever its options say.
  EXPECT_EQ(cgroup_v1_mount(kHybridMounts, "mode=755"), std::nullopt);
}

TEST(CgroupMounts, PureV2AndEscapedMountPoints) {
  EXPECT_EQ(cgroup_v2_mount("cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nsdelegate 0 0\n"), "/sys/fs/cgroup");
  EXPECT_EQ(cgroup_v1_mount("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n", "memory"), std::nullopt);
  // A mount point with a space is octal-escaped in /proc/self/mounts: skipped, not misread.
  EXPECT_EQ(cgroup_v2_mount("cgroup2 /mnt/my\\040cgroups cgroup2 rw 0 0\n"), std::nullopt);
}

TEST(CgroupCounters, FlatKeyedFiles) {
  constexpr std::string_view memory_events = "low 0\nhigh 0\nmax 17\noom 2\noom_kill 1\noom_group_kill 0\n";
  EXPECT_EQ(flat_key_value(memory_events, "oom_kill"), 1);
  EXPECT_EQ(flat_key_value(memory_events, "oom"), 2);
  EXPECT_EQ(flat_key_value(memory_events, "max"), 17);
  EXPECT_EQ(flat_key_value(memory_events, "oom_kil"), std::nullopt);
  constexpr std::string_view cpu_stat = "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n";
  EXPECT_EQ(flat_key_value(cpu_stat, "usage_usec"), 1'500'000);
  EXPECT_EQ(flat_key_value("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n", "oom_kill"), 3);
  EXPECT_EQ(flat_key_value("oom_kill notanumber\n", "oom_kill"), std::nullopt);
}

TEST(CgroupCounters, SingleValues) {
  EXPECT_EQ(single_value("104857600\n"), 104'857'600);
  EXPECT_EQ(single_value("9223372036854771712\n"), 9'223'372'036'854'771'712);
  EXPECT_EQ(single_value("max\n"), std::nullopt);
  EXPECT_EQ(single_value(""), std::nullopt);
}

TEST(CgroupCounters, PidList) {
  EXPECT_EQ(pid_list("12\n345\n6789\n"), (std::vector<pid_t>{12, 345, 6789}));
  EXPECT_EQ(pid_list(""), std::vector<pid_t>{});
  EXPECT_EQ(pid_list("12\n\nx\n-4\n0\n7"), (std::vector<pid_t>{12, 7}));
}

TEST(CgroupFile, RereadsFromTheStart) {
  CgroupFile missing("/nonexistent/memory.current");
  EXPECT_FALSE(missing.is_open());
  EXPECT_EQ(missing.read(), std::nullopt);
  CgroupFile self("/proc/self/cgroup");
  ASSERT_TRUE(self.is_open());
  auto first = self.read();
  ASSERT_TRUE(first);
  EXPECT_TRUE(cgroup_v2_path(*first) || cgroup_v1_path(*first, "memory")) << *first;
  EXPECT_EQ(self.read(), first);
}

}  // namespace
}  // namespace canopy::probe
