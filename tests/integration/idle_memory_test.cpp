// Memory that changes while its process sleeps. canopy skips the memory read of a
// process that did not run since the previous tick, unless /proc/vmstat says the
// kernel reclaimed, swapped or collapsed pages meanwhile, and reads it in full at
// least once a second. Another process writing into a sleeper's pages moves none of
// vmstat's counts: only that once-a-second read can see it.
#include <gtest/gtest.h>

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <vector>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

// Writes one byte into each page of [address, address + bytes) of process `pid`: the
// kernel faults the pages into its memory without it running.
bool write_every_page(pid_t pid, uintptr_t address, size_t bytes) {
  constexpr size_t kPage = 4096;
  std::vector<char> ones(IOV_MAX, 1);
  std::vector<iovec> remote;
  for (size_t offset = 0; offset < bytes; offset += kPage) {
    remote.push_back({reinterpret_cast<void*>(address + offset), 1});
    if (remote.size() == ones.size() || offset + kPage >= bytes) {
      iovec local{ones.data(), remote.size()};
      ssize_t written = ::process_vm_writev(pid, &local, 1, remote.data(), remote.size(), 0);
      if (written != static_cast<ssize_t>(remote.size())) {
        return false;
      }
      remote.clear();
    }
  }
  return true;
}

TEST(IdleMemory, PagesWrittenIntoASleepingProcessAreSeenWhileItSleeps) {
  TempDir dir;
  std::string path = dir.file("sleeper.canopy");
  // 64 MiB mapped, untouched; asleep 3 s (with 19 sleeping children).
  Started canopy({kCanopy, "record", "-q", "-o", path, "--", kWorkload, "untouched", "64", "3000"});
  ASSERT_TRUE(canopy.wait_for_output("ready")) << canopy.output();
  std::istringstream line(canopy.output().substr(canopy.output().find("ready")));
  std::string word;
  pid_t pid = 0;
  uintptr_t address = 0;
  line >> word >> pid >> std::hex >> address;
  ASSERT_GT(pid, 0) << canopy.output();
  // Half a second in, so that some ticks have already found it idle.
  ::usleep(500'000);
  ASSERT_TRUE(write_every_page(pid, address, static_cast<size_t>(mib(64)))) << std::strerror(errno);
  Finished finished = canopy.wait();
  ASSERT_EQ(finished.exit_status, 0) << finished.err;

  auto reader = open_recording(path);
  auto processes = reader.processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 20u);
  const store::ProcessRow& sleeper = processes->front();
  ASSERT_EQ(sleeper.pid, pid);
  // The samples, not the exit record's peak: seen while it slept on for 2.5 s.
  EXPECT_GE(anon_peaks(reader)[sleeper.id], mib(64));
}

}  // namespace
}  // namespace canopy::testing
