// canopy record exits with the command's status, as `time` does, and says why in one
// line when the command failed or could not run.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

Finished record(const TempDir& dir, std::vector<std::string> command, const std::string& name = "r.canopy") {
  std::vector<std::string> argv{kCanopy, "record", "-o", dir.file(name), "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  return run(argv);
}

TEST(ExitStatus, ZeroAndNonZeroPassedThrough) {
  TempDir dir;
  EXPECT_EQ(record(dir, {kWorkload, "exit", "0"}, "0.canopy").exit_status, 0);
  auto three = record(dir, {kWorkload, "exit", "3"}, "3.canopy");
  EXPECT_EQ(three.exit_status, 3);
  EXPECT_EQ(three.err.substr(0, three.err.find('\n')), "canopy: command exited with status 3");
}

TEST(ExitStatus, KilledBySignalIs128PlusN) {
  TempDir dir;
  auto result = record(dir, {kWorkload, "signal", "9"});
  EXPECT_EQ(result.exit_status, 128 + 9);
  EXPECT_EQ(result.err.substr(0, result.err.find('\n')), "canopy: command killed by signal 9 (SIGKILL)");
  EXPECT_EQ(open_recording(dir.file("r.canopy")).meta().exit_signal, 9);
}

TEST(ExitStatus, NotFoundIs127AndLeavesNoRecording) {
  TempDir dir;
  auto result = record(dir, {"canopy-no-such-command", "x"});
  EXPECT_EQ(result.exit_status, 127);
  EXPECT_EQ(result.err, "canopy: cannot run 'canopy-no-such-command': command not found (searched PATH)\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.canopy")));

  auto by_path = record(dir, {dir.file("missing.sh")});
  EXPECT_EQ(by_path.exit_status, 127);
  EXPECT_EQ(by_path.err, "canopy: cannot run '" + dir.file("missing.sh") + "': no such file\n");
}

TEST(ExitStatus, NotExecutableIs126) {
  TempDir dir;
  std::string script = dir.file("script.sh");
  std::ofstream(script) << "#!/bin/sh\nexit 0\n";
  ::chmod(script.c_str(), 0644);
  auto result = record(dir, {script});
  EXPECT_EQ(result.exit_status, 126);
  EXPECT_EQ(result.err, "canopy: cannot run '" + script + "': Permission denied\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.canopy")));
}

// A script whose "#!" names no file fails exec with ENOENT, as a missing script does:
// the message must not say the script is missing. 126, as the shell's "bad interpreter".
TEST(ExitStatus, AScriptsMissingInterpreterIsNamed) {
  TempDir dir;
  std::string script = dir.file("script.sh");
  std::ofstream(script) << "#!/no/such/shell -e\nexit 0\n";
  ::chmod(script.c_str(), 0755);
  auto result = record(dir, {script});
  EXPECT_EQ(result.exit_status, 126);
  EXPECT_EQ(result.err,
            "canopy: cannot run '" + script + "': its interpreter '/no/such/shell' (its #! line) does not exist\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.canopy")));

  // Saved with Windows line endings, the interpreter's name ends in a carriage return.
  std::ofstream(script) << "#!/bin/sh\r\nexit 0\r\n";
  auto crlf = record(dir, {script});
  EXPECT_EQ(crlf.exit_status, 126);
  EXPECT_EQ(crlf.err, "canopy: cannot run '" + script +
                          "': its interpreter '/bin/sh\\r' (its #! line) does not exist: the line ends in a carriage "
                          "return (Windows line endings)\n");

  // Found on PATH, the same.
  RunOptions on_path;
  on_path.env["PATH"] = dir.path() + ":/usr/bin:/bin";
  auto searched = run({kCanopy, "record", "-q", "-o", dir.file("r.canopy"), "--", "script.sh"}, on_path);
  EXPECT_EQ(searched.exit_status, 126);
  EXPECT_EQ(searched.err, "canopy: cannot run 'script.sh': its interpreter '/bin/sh\\r' (its #! line) does not exist: "
                          "the line ends in a carriage return (Windows line endings)\n");
}

// A program built for a loader this machine lacks (another libc's) fails exec with
// ENOENT too; and so does a script whose interpreter is such a program.
TEST(ExitStatus, AProgramsMissingLoaderIsNamed) {
  TempDir dir;
  std::ifstream in("/bin/true", std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string loader = "/lib64/ld-linux-x86-64.so.2";
  size_t at = image.find(loader);
  if (at == std::string::npos) {
    GTEST_SKIP() << "/bin/true does not name " << loader;
  }
  image.replace(at, loader.size(), "/no/such/ld-linux-x86-64.so");  // as long: the ELF's offsets hold
  std::string program = dir.file("foreign");
  std::ofstream(program, std::ios::binary) << image;
  ::chmod(program.c_str(), 0755);
  auto result = record(dir, {program});
  EXPECT_EQ(result.exit_status, 126);
  EXPECT_EQ(result.err,
            "canopy: cannot run '" + program + "': the loader it names (its ELF interpreter) does not exist\n");

  std::string script = dir.file("script.sh");
  std::ofstream(script) << "#!" << program << "\n";
  ::chmod(script.c_str(), 0755);
  auto through = record(dir, {script});
  EXPECT_EQ(through.exit_status, 126);
  EXPECT_EQ(through.err, "canopy: cannot run '" + script + "': its interpreter '" + program +
                             "' (its #! line) names a loader that does not exist\n");
}

TEST(ExitStatus, ADirectoryIsSaidToBeOne) {
  TempDir dir;
  auto result = record(dir, {dir.path()});
  EXPECT_EQ(result.exit_status, 126);
  EXPECT_EQ(result.err, "canopy: cannot run '" + dir.path() + "': it is a directory\n");
}

TEST(ExitStatus, SigintIsForwardedToTheCommand) {
  TempDir dir;
  Started canopy({kCanopy, "record", "-o", dir.file("int.canopy"), "--", kWorkload, "wait-sigint"});
  ASSERT_TRUE(canopy.wait_for_output("ready"));
  canopy.signal(SIGINT);
  auto result = canopy.wait();
  // The workload exits 42 from its SIGINT handler: canopy passed the signal on, and
  // was not itself stopped by it.
  EXPECT_EQ(result.exit_status, 42) << result.err;
  auto reader = open_recording(dir.file("int.canopy"));
  auto events = reader.events();
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ(events->front().kind, "signal");
  EXPECT_EQ(events->front().text, "SIGINT forwarded to the command");
}

TEST(ExitStatus, SigtermIsForwardedToo) {
  TempDir dir;
  Started canopy({kCanopy, "record", "-q", "-o", dir.file("term.canopy"), "--", kWorkload, "wait-sigint"});
  ASSERT_TRUE(canopy.wait_for_output("ready"));
  canopy.signal(SIGTERM);
  EXPECT_EQ(canopy.wait().exit_status, 128 + SIGTERM);
}

TEST(ExitStatus, AReaderGoneFromOurStderrDoesNotLoseTheCommandsStatus) {
  // `canopy record -- make 2>&1 | head`: the summary meets a pipe nobody reads. canopy
  // must still exit with the command's status, not die of SIGPIPE (141). The reader
  // closes its end before the command exits, so every line canopy writes meets EPIPE.
  TempDir dir;
  std::string rec = dir.file("pipe.canopy");
  std::string script = "grep SigIgn /proc/self/status > " + dir.file("ignored-outside") + "; ( " + kCanopy +
                       " record -o " + rec + " -- sh -c 'while [ ! -e " + dir.file("gone") +
                       " ]; do sleep 0.01; done; grep SigIgn /proc/self/status > " + dir.file("ignored-inside") +
                       "; exit 3'; echo $? > " + dir.file("status") + " ) 2>&1 | (exec 0<&-; touch " +
                       dir.file("gone") + ")";
  auto result = run({"sh", "-c", script});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(read_file(dir.file("status")), "3\n");
  auto reader = open_recording(rec);
  EXPECT_TRUE(reader.meta().end_ms.has_value());
  EXPECT_EQ(reader.meta().exit_code, 3);
  // The command still gets SIGPIPE (and every other disposition) as canopy got it.
  EXPECT_EQ(read_file(dir.file("ignored-inside")), read_file(dir.file("ignored-outside")));
}

TEST(ExitStatus, BadFlagIsOneLineAnd125) {
  auto result = run({kCanopy, "record", "--interval", "0", "--", "true"});
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_EQ(result.err.rfind("canopy: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find("--interval"), std::string::npos) << result.err;

  auto nothing = run({kCanopy, "record"});
  EXPECT_EQ(nothing.exit_status, 125);
  EXPECT_EQ(nothing.err, "canopy: record needs a command (canopy record -- COMMAND ARGS) or --pid PID\n");
}

}  // namespace
}  // namespace canopy::testing
