// record --heap's account of the processes it did not profile (record/heap_coverage.h):
// the verdict on a real process from its environment, and which process's last
// program an image counts for.
#include "record/heap_coverage.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <map>

#include "support/sleeping_child.h"

namespace canopy::record {
namespace {

const std::string kLibrary = "/opt/canopy/lib/libcanopy-heap.so";
const std::string kSocket = "/run/canopy-1/heap.sock";

const char* verdict_for(const std::vector<std::string>& environment) {
  HeapCoverage coverage(kLibrary, kSocket, 4096);
  testing::SleepingChild sleeper(environment);
  EXPECT_TRUE(sleeper.files());
  return coverage.reason_not_loaded(sleeper.files());
}

TEST(HeapCoverageVerdict, TheProfilerLoadsWhereTheEnvironmentPreloadsItAndNamesTheSocket) {
  EXPECT_EQ(verdict_for({"HOME=/root", "LD_PRELOAD=/usr/lib/libfaketime.so " + kLibrary + ":/lib/other.so",
                         "CANOPY_HEAP_SOCKET=" + kSocket}),
            nullptr);
}

TEST(HeapCoverageVerdict, AnEnvironmentWithoutThePreloadOrTheSocketIsTheReason) {
  using std::string;
  EXPECT_EQ(string(verdict_for({})), "environment");  // env -i
  EXPECT_EQ(string(verdict_for({"LD_PRELOAD=/usr/lib/libother.so", "CANOPY_HEAP_SOCKET=" + kSocket})),
            "environment");
  EXPECT_EQ(string(verdict_for({"LD_PRELOAD=" + kLibrary + ".old", "CANOPY_HEAP_SOCKET=" + kSocket})),
            "environment");
  EXPECT_EQ(string(verdict_for({"LD_PRELOAD=" + kLibrary})), "environment");
  EXPECT_EQ(string(verdict_for({"LD_PRELOAD=" + kLibrary, "CANOPY_HEAP_SOCKET=/run/another/heap.sock"})),
            "environment");
}

// Started as a user other than the recorder's, the profiler loads but cannot reach the
// socket, whose directory is the recorder's user's; root can.
TEST(HeapCoverageVerdict, AProgramStartedAsAnotherUserCannotReachTheSocket) {
  testing::SleepingChild sleeper({"LD_PRELOAD=" + kLibrary, "CANOPY_HEAP_SOCKET=" + kSocket});
  ASSERT_TRUE(sleeper.files());
  HeapCoverage same_user(kLibrary, kSocket, 4096, ::geteuid());
  EXPECT_EQ(same_user.reason_not_loaded(sleeper.files()), nullptr);
  HeapCoverage other_user(kLibrary, kSocket, 4096, ::geteuid() + 1);
  const char* verdict = other_user.reason_not_loaded(sleeper.files());
  if (::geteuid() == 0) {
    EXPECT_EQ(verdict, nullptr) << "root reaches any directory";
  } else {
    ASSERT_NE(verdict, nullptr);
    EXPECT_EQ(std::string(verdict), "other user");
  }
}

TEST(HeapCoverageVerdict, AProgramGoneBeforeTheLookIsUnknown) {
  HeapCoverage coverage(kLibrary, kSocket, 4096);
  EXPECT_EQ(std::string(coverage.reason_not_loaded(nullptr)), "unknown");
  std::optional<probe::ProcessFiles> files;
  {
    testing::SleepingChild sleeper({"LD_PRELOAD=" + kLibrary, "CANOPY_HEAP_SOCKET=" + kSocket});
    ASSERT_TRUE(sleeper.files());
    files = std::move(*sleeper.files());
  }  // killed and reaped: its files read nothing
  EXPECT_EQ(std::string(coverage.reason_not_loaded(&*files)), "unknown");
}

// Tells `coverage` of a program (of `process_id`, `pid`) whose environment preloads the
// profiler and names the socket: one it was to load into.
void loads_the_profiler(HeapCoverage& coverage, int64_t process_id, pid_t pid, uint64_t exec_ns) {
  testing::SleepingChild sleeper({"LD_PRELOAD=" + kLibrary, "CANOPY_HEAP_SOCKET=" + kSocket});
  coverage.on_program(process_id, pid, sleeper.files(), exec_ns);
}

std::map<int64_t, std::string> reasons(const HeapCoverage& coverage) {
  std::map<int64_t, std::string> by_process;
  for (const store::HeapUnprofiledRow& row : coverage.unprofiled()) {
    by_process[row.process_id] = row.reason;
    EXPECT_EQ(row.rate_bytes, 4096);
  }
  return by_process;
}

// Process 1 runs a program the profiler loads into, forks 2 (which runs on in it) and
// 3 (which execs a program it cannot load into, and is then gone before a look).
TEST(HeapCoverageVerdict, AnImageCountsForTheProgramItWasLoadedInto) {
  HeapCoverage coverage(kLibrary, kSocket, 4096);
  loads_the_profiler(coverage, 1, 100, 1'000);
  coverage.on_fork(2, 101, 1, 1'500);
  coverage.on_fork(3, 102, 1, 1'600);
  coverage.on_program(3, 102, nullptr, 5'000);
  // Nothing reported yet: loaded and silent, or gone unseen.
  EXPECT_EQ(reasons(coverage), (std::map<int64_t, std::string>{{1, "no samples"}, {2, "no samples"}, {3, "unknown"}}));

  // A fork's image keeps its parent's load time: the same program.
  coverage.on_image(1, 100, 1'200);
  coverage.on_image(2, 101, 1'200);
  // Process 3's image from before its exec was its first program's.
  coverage.on_image(3, 102, 1'200);
  EXPECT_EQ(reasons(coverage), (std::map<int64_t, std::string>{{3, "unknown"}}));
  // An image the recorder could not tie to its process counts by PID.
  coverage.on_image(std::nullopt, 102, 5'100);
  EXPECT_TRUE(reasons(coverage).empty());
}

// Process 1 runs a sanitized program, whose profiler stands aside at load; it forks 2,
// which forks 4 (both run on in the program, and say nothing), and 3, which execs a
// program the profiler loads into and that reports nothing. Process 5, forked by 3
// after its exec, runs that second program.
TEST(HeapCoverageVerdict, AProfilerThatStoodAsideGivesItsReasonToItsProcessAndItsForks) {
  HeapCoverage coverage(kLibrary, kSocket, 4096);
  loads_the_profiler(coverage, 1, 100, 1'000);
  coverage.on_fork(2, 101, 1, 1'500);
  coverage.on_fork(4, 103, 2, 1'600);
  coverage.on_fork(3, 102, 1, 1'700);
  loads_the_profiler(coverage, 3, 102, 5'000);
  coverage.on_fork(5, 104, 3, 5'500);
  EXPECT_EQ(reasons(coverage), (std::map<int64_t, std::string>{
                                   {1, "no samples"}, {2, "no samples"}, {3, "no samples"}, {4, "no samples"},
                                   {5, "no samples"}}));

  // Said before the recorder could tie the connection to process 1: by its PID.
  coverage.on_stood_aside(std::nullopt, 100, 1'100, "sanitizer");
  EXPECT_EQ(reasons(coverage), (std::map<int64_t, std::string>{
                                   {1, "sanitizer"}, {2, "sanitizer"}, {3, "no samples"}, {4, "sanitizer"},
                                   {5, "no samples"}}));
}

// Process 1 runs a program the profiler loads into (a shell), which forks 2 and then
// execs a program whose malloc is its own, where the profiler stands aside. Its
// fork runs the first program: the profiler's word about the second is not the fork's.
TEST(HeapCoverageVerdict, AForkDoesNotTakeTheWordOfAProgramItsParentExecdAfterIt) {
  HeapCoverage coverage(kLibrary, kSocket, 4096);
  loads_the_profiler(coverage, 1, 100, 1'000);
  coverage.on_fork(2, 101, 1, 1'500);
  loads_the_profiler(coverage, 1, 100, 2'000);
  coverage.on_stood_aside(1, 100, 2'100, "own malloc");
  EXPECT_EQ(reasons(coverage), (std::map<int64_t, std::string>{{1, "own malloc"}, {2, "no samples"}}));
}

// Looked at after its exec (at first sight), before that exec's event came: an image
// loaded before the exec's time is an earlier program's.
TEST(HeapCoverageVerdict, AnExecTimeLearnedAfterTheLookStillSeparatesPrograms) {
  HeapCoverage coverage(kLibrary, kSocket, 4096);
  loads_the_profiler(coverage, 7, 700, 0);
  coverage.on_image(7, 700, 2'000);
  EXPECT_TRUE(reasons(coverage).empty());  // any image, while the exec's time is unknown
  coverage.on_exec_time(7, 3'000);
  coverage.on_exec_time(7, 2'500);  // an older exec's event: the later one stands
  EXPECT_EQ(reasons(coverage), (std::map<int64_t, std::string>{{7, "no samples"}}));
}

}  // namespace
}  // namespace canopy::record
