// Where canopy's commands write their output files, run as a user would, with one
// policy for all (docs/recording.md, "Output files"): a regular file is replaced only with
// --force, a character device or FIFO is written through (or refused by the commands
// that write a SQLite recording), a symlink is followed, a directory is refused, and
// the command's own input is never written over.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

namespace fs = std::filesystem;

bool is_char_device(const std::string& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// A character device like /dev/null (1:3) of the test's own, so that a canopy that
// replaced it would harm nothing else. mknod needs CAP_MKNOD; false without.
bool make_null_device(const std::string& path) { return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0; }

class OutputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    recording_ = dir_.file("r.canopy");
    auto recorded = run({kCanopy, "record", "-q", "-o", recording_, kWorkload, "exit", "0"});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.err;
    auto csv = run({kCanopy, "export", recording_, "--format", "csv"});
    ASSERT_EQ(csv.exit_status, 0) << csv.err;
    csv_ = csv.out;
    ASSERT_FALSE(csv_.empty());
    recording_bytes_ = read_file(recording_);
  }

  Finished export_csv(const std::string& output, bool force = false) {
    std::vector<std::string> argv = {kCanopy, "export", recording_, "--format", "csv", "-o", output};
    if (force) {
      argv.push_back("--force");
    }
    return run(argv);
  }

  TempDir dir_;
  std::string recording_;
  std::string recording_bytes_;
  std::string csv_;
};

TEST_F(OutputFiles, ExportWritesThroughACharacterDevice) {
  std::string device = dir_.file("n");
  if (!make_null_device(device)) {
    GTEST_SKIP() << "mknod: " << std::strerror(errno) << " (needs CAP_MKNOD)";
  }
  auto exported = export_csv(device);
  EXPECT_EQ(exported.exit_status, 0) << exported.err;
  EXPECT_TRUE(is_char_device(device)) << "the device node was replaced";
  for (const auto& entry : fs::directory_iterator(dir_.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
  }
}

TEST_F(OutputFiles, ExportWritesThroughAFifo) {
  std::string fifo = dir_.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A reader first, so canopy's open for writing does not wait; the CSV is far smaller
  // than the pipe's buffer, so canopy finishes before we read.
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  auto exported = export_csv(fifo);
  EXPECT_EQ(exported.exit_status, 0) << exported.err;
  std::string received;
  char buffer[4096];
  for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;) {
    received.append(buffer, static_cast<size_t>(n));
  }
  ::close(reader);
  EXPECT_EQ(received, csv_);
  struct stat st{};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
}

TEST_F(OutputFiles, ExportFollowsASymlinkToItsStdout) {
  std::string link = dir_.file("out");
  fs::create_symlink("/proc/self/fd/1", link);
  auto exported = export_csv(link);
  EXPECT_EQ(exported.exit_status, 0) << exported.err;
  EXPECT_EQ(exported.out, csv_);
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST_F(OutputFiles, ExportFollowsASymlinkToARegularFile) {
  fs::create_directory(dir_.file("sub"));
  std::string target = dir_.file("sub/target.csv");
  std::string link = dir_.file("link.csv");
  fs::create_symlink("sub/target.csv", link);  // relative: from the link's folder
  auto created = export_csv(link);  // nothing at the target yet: created there
  EXPECT_EQ(created.exit_status, 0) << created.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_file(target), csv_);

  write_file(target, "old");
  auto refused = export_csv(link);
  EXPECT_EQ(refused.exit_status, 1);
  EXPECT_EQ(refused.err, "canopy: cannot write '" + link + "': file exists (use --force to replace it)\n");
  EXPECT_EQ(read_file(target), "old");

  auto forced = export_csv(link, /*force=*/true);
  EXPECT_EQ(forced.exit_status, 0) << forced.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_file(target), csv_);
}

TEST_F(OutputFiles, ExportKeepsAnExistingFileUnlessForced) {
  std::string out = dir_.file("out.csv");
  write_file(out, "keep me");
  auto refused = export_csv(out);
  EXPECT_EQ(refused.exit_status, 1);
  EXPECT_EQ(refused.err, "canopy: cannot write '" + out + "': file exists (use --force to replace it)\n");
  EXPECT_EQ(read_file(out), "keep me");
  auto forced = export_csv(out, /*force=*/true);
  EXPECT_EQ(forced.exit_status, 0) << forced.err;
  EXPECT_EQ(read_file(out), csv_);
}

TEST_F(OutputFiles, ExportNeverWritesOverItsInput) {
  std::string hard_link = dir_.file("same.canopy");
  fs::create_hard_link(recording_, hard_link);
  std::string symlink = dir_.file("same-link.canopy");
  fs::create_symlink(recording_, symlink);
  for (const std::string& output : {recording_, hard_link, symlink}) {
    auto refused = export_csv(output, /*force=*/true);
    EXPECT_EQ(refused.exit_status, 1) << output;
    EXPECT_EQ(refused.err, "canopy: cannot write '" + output + "': it is the input file '" + recording_ + "'\n");
  }
  EXPECT_EQ(read_file(recording_), recording_bytes_);
  EXPECT_TRUE(fs::is_symlink(symlink));
}

TEST_F(OutputFiles, ExportRefusesADirectory) {
  auto refused = export_csv(dir_.path(), /*force=*/true);
  EXPECT_EQ(refused.exit_status, 1);
  EXPECT_EQ(refused.err, "canopy: cannot write '" + dir_.path() + "': is a directory\n");
}

TEST_F(OutputFiles, HtmlReportFollowsTheSamePolicy) {
  std::string html = dir_.file("r.html");
  write_file(html, "keep me");
  auto refused = run({kCanopy, "report", recording_, "--html", html});
  EXPECT_EQ(refused.exit_status, 1);
  EXPECT_EQ(refused.err, "canopy: cannot write '" + html + "': file exists (use --force to replace it)\n");
  EXPECT_EQ(refused.out, "") << "refused before anything was printed";
  EXPECT_EQ(read_file(html), "keep me");

  auto forced = run({kCanopy, "report", recording_, "--html", html, "--force"});
  EXPECT_EQ(forced.exit_status, 0) << forced.err;
  EXPECT_EQ(read_file(html).rfind("<!doctype html>", 0), 0u) << read_file(html).substr(0, 80);

  auto onto_input = run({kCanopy, "report", recording_, "--html", recording_, "--force"});
  EXPECT_EQ(onto_input.exit_status, 1);
  EXPECT_EQ(onto_input.err, "canopy: cannot write '" + recording_ + "': it is the input file '" + recording_ + "'\n");
  EXPECT_EQ(read_file(recording_), recording_bytes_);

  std::string link = dir_.file("stdout.html");
  fs::create_symlink("/proc/self/fd/2", link);  // stdout carries the summary
  auto through = run({kCanopy, "report", recording_, "--html", link});
  EXPECT_EQ(through.exit_status, 0) << through.err;
  EXPECT_NE(through.err.find("<!doctype html>"), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST_F(OutputFiles, RecordRefusesACharacterDeviceWithOrWithoutForce) {
  std::string device = dir_.file("n");
  if (!make_null_device(device)) {
    GTEST_SKIP() << "mknod: " << std::strerror(errno) << " (needs CAP_MKNOD)";
  }
  for (bool force : {false, true}) {
    std::vector<std::string> argv = {kCanopy, "record", "-q", "-o", device, kWorkload, "exit", "0"};
    if (force) {
      argv.insert(argv.begin() + 2, "-f");
    }
    auto refused = run(argv);
    EXPECT_EQ(refused.exit_status, 125) << force;
    EXPECT_EQ(refused.err, "canopy: cannot write '" + device +
                               "': a character device; a recording must be a regular file\n");
    EXPECT_TRUE(is_char_device(device)) << "the device node was replaced (force " << force << ")";
  }
}

TEST_F(OutputFiles, RecordRefusesADirectoryWithoutMentioningForce) {
  auto refused = run({kCanopy, "record", "-q", "-f", "-o", dir_.path(), kWorkload, "exit", "0"});
  EXPECT_EQ(refused.exit_status, 125);
  EXPECT_EQ(refused.err, "canopy: cannot write '" + dir_.path() + "': is a directory\n");
}

TEST_F(OutputFiles, RecordFollowsASymlink) {
  std::string link = dir_.file("link.canopy");
  fs::create_symlink("r.canopy", link);
  auto refused = run({kCanopy, "record", "-q", "-o", link, kWorkload, "exit", "3"});
  EXPECT_EQ(refused.exit_status, 125);
  EXPECT_EQ(refused.err, "canopy: cannot write '" + link + "': file exists (use --force to replace it)\n");
  auto forced = run({kCanopy, "record", "-q", "-f", "-o", link, kWorkload, "exit", "3"});
  EXPECT_EQ(forced.exit_status, 3) << forced.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(open_recording(recording_).meta().exit_code, 3);
}

TEST_F(OutputFiles, ImportNeverWritesOverItsInput) {
  std::string json = dir_.file("r.json");
  ASSERT_EQ(run({kCanopy, "export", recording_, "--format", "onlooker", "-o", json}).exit_status, 0);
  std::string json_bytes = read_file(json);
  auto refused = run({kCanopy, "import", json, "-o", json, "--force"});
  EXPECT_EQ(refused.exit_status, 1);
  EXPECT_EQ(refused.err, "canopy: cannot write '" + json + "': it is the input file '" + json + "'\n");
  EXPECT_EQ(read_file(json), json_bytes);

  std::string device = dir_.file("n");
  if (make_null_device(device)) {
    auto onto_device = run({kCanopy, "import", json, "-o", device, "--force"});
    EXPECT_EQ(onto_device.exit_status, 1);
    EXPECT_EQ(onto_device.err, "canopy: cannot write '" + device +
                                   "': a character device; a recording must be a regular file\n");
    EXPECT_TRUE(is_char_device(device));
  }
}

}  // namespace
}  // namespace canopy::testing
