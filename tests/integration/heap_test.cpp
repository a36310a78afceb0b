// record --heap on a real tree: the heap workload (tests/workload/heap_workload.cpp)
// leaks at three sites of known block sizes and counts, in a parent built with frame
// pointers and a child it fork+execs built without them, among a cache, a peak given
// back, churning threads and exceptions. The recording must hold both processes'
// images, and each site's sampled survivors must estimate its bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "analyze/heap_history.h"
#include "common/perf_map_path.h"
#include "integration/harness.h"
#include "integration/heap_sites.h"

namespace canopy::testing {
namespace {

// `canopy record --heap` of the heap workload with `arguments`, at the tests' rate.
Finished record_heap_workload(const std::string& path, const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {kCanopy, "record", "-q", "--heap=" + std::to_string(kHeapRateBytes),
                                   "-o",    path,     "--", kHeapWorkload};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  return run(argv);
}

struct SiteEstimate {
  double bytes = 0;
  int64_t samples = 0;
  std::set<int64_t> images;
};

TEST(Heap, EveryLeakSiteOfTheTreeIsEstimatedWithinAQuarter) {
  TempDir dir;
  std::string path = dir.file("heap.canopy");
  auto result = record_heap_workload(path, {"parent", kHeapWorkloadNoFramePointers});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  EXPECT_EQ(reader.format_version(), 3);
  auto profile = reader.heap_profile();
  ASSERT_TRUE(profile.ok()) << profile.error().message;

  // Both programs, each to its exit snapshot; the fork's copy of the parent execs before
  // it samples anything, and so reports nothing.
  std::set<int64_t> pids;
  for (const auto& image : profile->images) {
    EXPECT_EQ(image.end.value_or(""), "exit") << "pid " << image.pid;
    EXPECT_EQ(image.rate_bytes, kHeapRateBytes);
    EXPECT_EQ(image.samples_dropped, 0);
    EXPECT_TRUE(image.process_id.has_value()) << "pid " << image.pid;
    pids.insert(image.pid);
  }
  EXPECT_EQ(pids.size(), 2u);

  std::map<int64_t, SiteEstimate> by_size;
  for (const auto& allocation : profile->allocations) {
    if (!allocation.freed_ms) {
      SiteEstimate& site = by_size[allocation.size_bytes];
      site.bytes += static_cast<double>(allocation.size_bytes) / allocation.probability;
      ++site.samples;
      site.images.insert(allocation.image_id);
    }
  }
  for (const HeapSite& site : kSites) {
    double truth = static_cast<double>(site.block_bytes * site.blocks);
    const SiteEstimate& estimate = by_size[site.block_bytes];
    EXPECT_NEAR(estimate.bytes, truth, truth * kHeapTolerance)
        << site.block_bytes << "-byte blocks, " << estimate.samples << " sampled";
    EXPECT_EQ(estimate.images.size(), 1u) << site.block_bytes << "-byte blocks";
  }
  // The peak's 6 KiB blocks and the churn's 512-byte ones were all given back.
  EXPECT_EQ(by_size[6144].samples, 0);
  EXPECT_EQ(by_size[512].samples, 0);
}

// A recording of the heap workload with `arguments` whose program forks one child: its
// processes (the parent and that child) and its heap profile.
struct ForkRecording {
  std::vector<store::ProcessRow> processes;
  store::HeapProfile profile;

  const store::ProcessRow& parent() const { return processes[0].parent_id ? processes[1] : processes[0]; }
  const store::ProcessRow& child() const { return processes[0].parent_id ? processes[0] : processes[1]; }
  // The child's images, in the order they were recorded.
  std::vector<const store::HeapImageRow*> child_images() const {
    std::vector<const store::HeapImageRow*> found;
    for (const store::HeapImageRow& image : profile.images) {
      if (image.pid == child().pid) {
        found.push_back(&image);
      }
    }
    return found;
  }
  // Its last image, or nullptr when it reported none.
  const store::HeapImageRow* child_image() const {
    auto images = child_images();
    return images.empty() ? nullptr : images.back();
  }
};

std::optional<ForkRecording> record_fork(const std::string& path, const std::vector<std::string>& arguments) {
  auto result = record_heap_workload(path, arguments);
  EXPECT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  auto profile = reader.heap_profile();
  auto processes = reader.processes();
  EXPECT_TRUE(profile.ok() && processes.ok());
  if (result.exit_status != 0 || !profile.ok() || !processes.ok() || processes->size() != 2) {
    ADD_FAILURE() << "not a recording of one parent and its child";
    return std::nullopt;
  }
  return ForkRecording{std::move(*processes), std::move(*profile)};
}

// A forked child that does not exec runs its parent's program, but its heap image is
// its own and starts at the fork. Its recorded start must not be the parent's: for a
// child too short-lived for the recorder to tie its image to its process as it
// connects, the time is what ties them afterwards (analyze::heap_image_process).
TEST(Heap, AForkedChildsImageStartsAtItsForkAndIsTiedToItByTime) {
  TempDir dir;
  auto recorded = record_fork(dir.file("fork.canopy"), {"fork-child"});
  ASSERT_TRUE(recorded);
  const store::ProcessRow& parent = recorded->parent();
  const store::ProcessRow& child = recorded->child();
  ASSERT_EQ(child.ppid, parent.pid);
  const store::HeapImageRow* child_image = recorded->child_image();
  ASSERT_NE(child_image, nullptr) << "the child's exit() reports its image";
  EXPECT_GE(child_image->started_ms, child.start_ms);
  // The parent slept before the fork: its image began at least that long before.
  EXPECT_GE(child.start_ms - parent.start_ms, 200);
  store::HeapImageRow untied = *child_image;
  untied.process_id.reset();
  auto tied = analyze::heap_image_process(untied, recorded->processes);
  ASSERT_TRUE(tied.has_value());
  EXPECT_EQ(tied->id, child.id);
}

// A forked child that allocates and leaves by _exit at once reports what it sampled,
// as one that calls exit() does: its one block of 128 KiB at a rate of 4 KiB goes
// unsampled with probability exp(-32) < 1e-13.
TEST(Heap, AForkedChildLeavingBy_exitAtOnceReportsItsSamples) {
  constexpr int64_t kBlockBytes = 128 * 1024;  // as in heap_workload.cpp
  TempDir dir;
  auto recorded = record_fork(dir.file("fork_exit.canopy"), {"fork-underscore-exit"});
  ASSERT_TRUE(recorded);
  const store::HeapImageRow* child_image = recorded->child_image();
  ASSERT_NE(child_image, nullptr) << "the child's _exit reports its image";
  const store::HeapSnapshotRow* last = nullptr;
  for (const store::HeapSnapshotRow& snapshot : recorded->profile.snapshots) {
    last = snapshot.image_id == child_image->id ? &snapshot : last;
  }
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->reason, "exit");
  EXPECT_GE(last->in_use_bytes, kBlockBytes);
  for (const store::HeapUnprofiledRow& row : recorded->profile.unprofiled) {
    EXPECT_NE(row.process_id, recorded->child().id) << row.reason;
  }
}

// A realloc that fails leaves the block to the caller, and so alive in the profile: the
// workload keeps its one block of 100,000 bytes to its exit after a realloc too large
// to succeed. At a rate of 4 KiB it goes unsampled with probability
// exp(-100000/4096) < 1e-10.
TEST(Heap, ABlockAFailedReallocLeftToTheCallerStaysAlive) {
  constexpr int64_t kBlockBytes = 100 * 1000;  // as in heap_workload.cpp
  TempDir dir;
  std::string path = dir.file("failed_realloc.canopy");
  auto result = record_heap_workload(path, {"failed-realloc"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto profile = open_recording(path).heap_profile();
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  int64_t sampled = 0;
  for (const store::HeapAllocationRow& allocation : profile->allocations) {
    if (allocation.size_bytes == kBlockBytes) {
      ++sampled;
      EXPECT_FALSE(allocation.freed_ms.has_value()) << "freed at " << *allocation.freed_ms << " ms";
    }
  }
  EXPECT_EQ(sampled, 1);
  ASSERT_FALSE(profile->snapshots.empty());
  EXPECT_GE(profile->snapshots.back().in_use_bytes, kBlockBytes);
}

// A program started with stdin closed gets 0 from its first open, and the profiler's
// descriptors must not take it. A daemon closes every descriptor it did not open, and is
// given the profiler's numbers for sockets of its own. The profiler must leave them
// alone: neither read the program's bytes as its commands, nor write snapshots or
// wake-ups into them, nor close them in a forked child, nor hold the program's fork on a
// send to a peer that never reads (the profiler before this did all four: the program
// hung in fork). The workload checks its own descriptors, here and in a forked child,
// and exits 0 when untouched.
TEST(Heap, AProgramThatClosesTheProfilersDescriptorsKeepsItsOwnFilesOnTheirNumbers) {
  TempDir dir;
  std::string path = dir.file("close_all.canopy");
  auto result = run({kCanopy, "record", "-q", "--heap=" + std::to_string(kHeapRateBytes), "--heap-interval", "100ms",
                     "-o", path, "--", "sh", "-c", "exec \"$0\" close-all <&-", kHeapWorkload});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  auto profile = reader.heap_profile();
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  auto processes = reader.processes();
  ASSERT_TRUE(processes.ok()) << processes.error().message;
  ASSERT_FALSE(processes->empty());
  // The image the profiler had opened before the program took its socket is kept.
  bool parent_imaged = false;
  for (const store::HeapImageRow& image : profile->images) {
    parent_imaged |= image.pid == processes->front().pid;
  }
  EXPECT_TRUE(parent_imaged);
}

// The kernel lets only a process of one thread enter a new user namespace (`unshare -U`,
// bwrap, rootless podman): the profiler's thread must be gone for the call, and its
// profile go on after it. Site D's blocks, allocated after, are all sampled with
// probability 1 - 0.613^2080 (heap_sites.h), so an image without them is a bug.
TEST(Heap, AProgramEntersAUserNamespaceWhileProfiled) {
  if (run({"unshare", "-U", "true"}).exit_status != 0) {
    GTEST_SKIP() << "user namespaces are not open to this user here";
  }
  TempDir dir;
  std::string path = dir.file("user_namespace.canopy");
  auto result = record_heap_workload(path, {"user-namespace"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto reader = open_recording(path);
  auto profile = reader.heap_profile();
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  ASSERT_EQ(profile->images.size(), 1u);
  EXPECT_EQ(profile->images[0].end.value_or(""), "exit");
  int64_t after = 0;
  for (const store::HeapAllocationRow& allocation : profile->allocations) {
    after += allocation.size_bytes == kSiteD.block_bytes && !allocation.freed_ms;
  }
  EXPECT_GT(after, 0) << "no block allocated after the namespace change was sampled";
}

// The recorder's socket is open to its own user only, and out of sight from a chroot: a
// daemon's worker that gives up root for nobody, or is jailed, before its first sample
// could not reach it, and its profile was lost. The workload's child does either, then
// allocates site D's blocks, all sampled with probability 1 - 0.613^2080 (heap_sites.h).
void expect_the_child_profiled(const std::vector<std::string>& workload) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "giving up a user or the root directory needs root";
  }
  TempDir dir;
  std::string path = dir.file("left.canopy");
  std::vector<std::string> arguments = workload;
  for (std::string& argument : arguments) {
    if (argument == "DIR") {
      argument = dir.path();
    }
  }
  auto recorded = record_fork(path, arguments);
  ASSERT_TRUE(recorded);
  ASSERT_EQ(recorded->child_images().size(), 1u) << "the child's image";
  const int64_t child_image = recorded->child_image()->id;
  int64_t sampled = 0;
  for (const store::HeapAllocationRow& allocation : recorded->profile.allocations) {
    sampled += allocation.image_id == child_image && allocation.size_bytes == kSiteD.block_bytes;
  }
  EXPECT_GT(sampled, 0);
}

TEST(Heap, AChildThatGivesUpItsUserIsProfiled) { expect_the_child_profiled({"drop-user"}); }

TEST(Heap, AChildInAChrootIsProfiled) { expect_the_child_profiled({"chroot", "DIR"}); }

// An allocation made by JIT code, whose frame lies in anonymous memory, is named from
// the perf map its process writes, and its stack goes on past it to main (the copy keeps
// a frame pointer). Site J is sized as the others (heap_sites.h): 1450 blocks of 3333
// bytes, mu = 1450 x 0.557 = 807, so its estimate is off by more than a quarter with
// probability under 3e-10.
TEST(Heap, AnAllocationMadeByJitCodeIsNamedFromThePerfMapOfItsProcess) {
  TempDir dir;
  std::string path = dir.file("jit.canopy");
  auto result = record_heap_workload(path, {"jit"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto processes = open_recording(path).processes();
  ASSERT_TRUE(processes.ok());
  ASSERT_EQ(processes->size(), 1u);
  RemovedAtEnd left_behind(perf_map_path((*processes)[0].pid));

  auto collapsed = run({kCanopy, "export", path, "--format", "collapsed"});
  ASSERT_EQ(collapsed.exit_status, 0) << collapsed.err;
  double jit_bytes = 0;
  std::istringstream lines(collapsed.out);
  for (std::string line; std::getline(lines, line);) {
    size_t space = line.rfind(' ');
    std::string stack = line.substr(0, space);
    if (stack.ends_with(";jit_alloc")) {
      EXPECT_NE(stack.find(";main;"), std::string::npos) << line;
      jit_bytes += std::stod(line.substr(space + 1));
    }
  }
  const double truth = static_cast<double>(kSiteJ.block_bytes * kSiteJ.blocks);
  EXPECT_NEAR(jit_bytes, truth, truth * kHeapTolerance) << collapsed.out;
}

TEST(Heap, AttachingIsRefusedForTheHeapProfiler) {
  auto result = run({kCanopy, "record", "--heap", "--pid", std::to_string(getpid())});
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_NE(result.err.find("--heap needs a command to run"), std::string::npos) << result.err;
}

TEST(Heap, ABadRateIsRefusedNamingTheFlag) {
  auto result = run({kCanopy, "record", "--heap=lots", "--", "true"});
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_EQ(result.err, "canopy: --heap 'lots': not a sampling rate such as 512K or 64K, or off\n");
  auto zero = run({kCanopy, "record", "--heap=0", "--", "true"});
  EXPECT_EQ(zero.exit_status, 125);
  EXPECT_EQ(zero.err, "canopy: --heap '0': must be at least 1 byte\n");
}

}  // namespace
}  // namespace canopy::testing
