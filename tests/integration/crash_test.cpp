// Nothing lost: a recorder killed with SIGKILL leaves a recording that opens, with
// samples up to at most one second before the kill; a disk that fills up, or a
// file-size limit, stops the recording, not the command.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "integration/harness.h"
#include "store/writer.h"

namespace canopy::testing {
namespace {

TEST(Crash, KillNineLeavesAReadableRecording) {
  TempDir dir;
  std::string path = dir.file("killed.canopy");
  Started canopy({kCanopy, "record", "-o", path, "--", kWorkload, "hold", "25", "30000"});
  // Killed once a sample has the command holding all of it, however long a loaded
  // machine takes to get there.
  bool holding = wait_for_recording(path, [](const store::Reader& live) {
    int64_t most_bytes = 0;
    auto read = live.for_each_sample([&](int64_t, int64_t, const store::SampleValues& v) {
      most_bytes = std::max(most_bytes, v[store::kRssAnonBytes].value_or(0));
    });
    return read && most_bytes >= mib(25);
  });
  ASSERT_TRUE(holding) << "canopy never recorded the command holding 25 MiB";
  // While its recorder runs, the file without an end is still being recorded, not
  // interrupted.
  auto live = run({kCanopy, "report", path});
  EXPECT_NE(live.out.find("(still recording: up to its last commit)"), std::string::npos) << live.out;
  EXPECT_EQ(live.out.find("interrupted"), std::string::npos) << live.out;
  auto live_diff = run({kCanopy, "diff", path, path});
  EXPECT_NE(live_diff.out.find("  note: A is still being recorded: it ends at its last commit so far\n"),
            std::string::npos)
      << live_diff.out;
  std::ifstream children("/proc/" + std::to_string(canopy.pid()) + "/task/" + std::to_string(canopy.pid()) +
                         "/children");
  pid_t command = 0;
  ASSERT_TRUE(children >> command);
  int64_t killed_at_ms = epoch_ms();
  canopy.signal(SIGKILL);
  // The command outlives its recorder (as with `time`) and holds its output pipes.
  ::kill(command, SIGKILL);
  canopy.wait();

  auto report = run({kCanopy, "report", path});
  ASSERT_EQ(report.exit_status, 0) << report.err;
  EXPECT_NE(report.out.find("recording interrupted"), std::string::npos) << report.out;
  EXPECT_EQ(report.out.find("still recording"), std::string::npos) << report.out;

  auto reader = open_recording(path);
  EXPECT_FALSE(reader.meta().end_ms);
  auto ticks = reader.ticks();
  ASSERT_TRUE(ticks);
  ASSERT_FALSE(ticks->empty());
  EXPECT_GE(ticks->back().t_ms, killed_at_ms - 1000);
  auto peaks = anon_peaks(reader);
  EXPECT_NEAR(static_cast<double>(peaks[1]), mib(25), mib(25) * 0.05);
  // The summary derives the peak of the process that never ended from its samples.
  auto json = run({kCanopy, "report", "--json", path});
  EXPECT_NE(json.out.find("\"complete\": false"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"still_recording\": false"), std::string::npos) << json.out;
}

// A tmpfs of `size` mounted at `path` while it lives.
class SmallFilesystem {
 public:
  SmallFilesystem(const std::string& path, const std::string& size) : path_(path) {
    mounted_ = ::mount("tmpfs", path.c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0;
    error_ = mounted_ ? "" : std::strerror(errno);
  }
  ~SmallFilesystem() {
    if (mounted_) {
      ::umount2(path_.c_str(), MNT_DETACH);
    }
  }
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  bool mounted_ = false;
  std::string error_;
};

TEST(Crash, AFullDiskStopsTheRecordingNotTheCommand) {
  TempDir dir;
  std::string small = dir.file("small");
  std::filesystem::create_directory(small);
  SmallFilesystem filesystem(small, "300k");
  if (!filesystem.mounted()) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << filesystem.error() << ")";
  }
  // 3000 processes' rows and events are several times what 300 KiB holds.
  std::string path = small + "/full.canopy";
  auto result =
      run({kCanopy, "record", "-q", "-o", path, "--", "sh", "-c", "for i in $(seq 3000); do /bin/true; done; exit 3"});
  EXPECT_EQ(result.exit_status, 3) << "the command's own status, as with time(1): " << result.err;
  const std::string said = "canopy: cannot write '" + path + "': database or disk is full";
  EXPECT_EQ(result.err, said + "; recording stopped, the command goes on\n") << "said once";
  // What was committed before the disk filled is a recording.
  auto report = run({kCanopy, "report", path});
  EXPECT_EQ(report.exit_status, 0) << report.err;
  EXPECT_NE(report.out.find("recording interrupted"), std::string::npos) << report.out;
}

TEST(Crash, ADiskFullAtTheFirstCommitSaysWhyAndLeavesAnEmptyRecording) {
  TempDir dir;
  // Room for the schema and one page more: the first commit's WAL index does not fit.
  std::string probe = dir.file("schema.canopy");
  ASSERT_TRUE(store::Writer::create(probe, false));
  auto room = std::filesystem::file_size(probe) + 4096;
  std::string small = dir.file("small");
  std::filesystem::create_directory(small);
  SmallFilesystem filesystem(small, std::to_string(room));
  if (!filesystem.mounted()) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << filesystem.error() << ")";
  }
  std::string path = small + "/full.canopy";
  auto result = run({kCanopy, "record", "-q", "-o", path, "--", "sh", "-c", "exit 3"});
  EXPECT_EQ(result.exit_status, 3) << result.err;
  // Said with its cause, not as a bare "disk I/O error"; once.
  EXPECT_EQ(result.err.rfind("canopy: cannot write '" + path + "': disk I/O error (No space left on device)", 0), 0u)
      << result.err;
  EXPECT_EQ(result.err.find("canopy: cannot", 1), std::string::npos) << "said once: " << result.err;
  // The file holds the schema alone, which the reader calls what it is.
  std::string moved = dir.file("moved.canopy");
  std::filesystem::copy_file(path, moved);
  auto report = run({kCanopy, "report", moved});
  EXPECT_EQ(report.exit_status, 1);
  EXPECT_EQ(report.err,
            "canopy: cannot open '" + moved + "': the recording is empty: its recorder stopped before its first commit\n");
}

TEST(Crash, AFileSizeLimitStopsTheRecordingNotTheCommand) {
  // Under ulimit -f a write past the limit raises SIGXFSZ, which killed the recorder and
  // left the command orphaned. The command still gets the signal: its `head` is killed
  // by it (128 + 25), as it would be without canopy. The limit, 400 blocks of 512 bytes
  // (dash's unit), holds the first commits, as the disk above does: 3000 processes'
  // rows and events are several times that.
  TempDir dir;
  std::string path = dir.file("limited.canopy");
  const std::string command = "for i in $(seq 3000); do /bin/true; done; head -c 400000 /dev/zero > big; "
                              "echo head:$?; exit 3";
  RunOptions in_dir;
  in_dir.cwd = dir.path();
  auto result = run(
      {"sh", "-c", "ulimit -f 400; exec \"$0\" record -q -o \"$1\" -- sh -c \"$2\"", kCanopy, path, command}, in_dir);
  EXPECT_EQ(result.exit_status, 3) << result.err;
  EXPECT_EQ(result.out, "head:153\n");
  // A line of its own, once. The shell of the command may add one on what killed its
  // head ("File size limit exceeded"), before canopy's or after: head can run before the
  // commit that meets the limit.
  const size_t at = result.err.find("canopy: cannot write '" + path + "': disk I/O error (a write failed; ");
  ASSERT_NE(at, std::string::npos) << result.err;
  EXPECT_TRUE(at == 0 || result.err[at - 1] == '\n') << result.err;
  EXPECT_NE(result.err.find(" bytes: ulimit -f); recording stopped, the command goes on\n", at), std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("canopy:"), at) << "said once: " << result.err;
  EXPECT_EQ(result.err.find("canopy:", at + 1), std::string::npos) << "said once: " << result.err;
  auto report = run({kCanopy, "report", path});
  EXPECT_EQ(report.exit_status, 0) << report.err;
  EXPECT_NE(report.out.find("recording interrupted"), std::string::npos) << report.out;
}

}  // namespace
}  // namespace canopy::testing
