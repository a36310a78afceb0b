// --capture-output and canopy mark on real commands: what the command writes still
// reaches canopy's own stdout and stderr unchanged, and every line is an event.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/utf8.h"
#include "integration/harness.h"

namespace canopy::testing {
namespace {

std::vector<store::EventRow> events_of_kind(const std::string& path, const std::string& kind) {
  auto events = open_recording(path).events();
  std::vector<store::EventRow> out;
  for (const auto& e : *events) {
    if (e.kind == kind) {
      out.push_back(e);
    }
  }
  return out;
}

RunOptions with_mark_variable(const std::string& value) {
  RunOptions options;
  options.env["CANOPY_MARK"] = value;
  return options;
}

std::vector<std::string> texts(const std::vector<store::EventRow>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) {
    out.push_back(e.text);
  }
  return out;
}

TEST(CaptureOutput, TwoStreamsStayTwoAndThePartialLastLineIsKept) {
  TempDir dir;
  std::string rec = dir.file("out.canopy");
  auto result = run({kCanopy, "record", "-q", "-o", rec, "--capture-output", "--", "sh", "-c",
                     "echo out1; echo err1 >&2; echo out2; printf 'err2\\r\\n' >&2; "
                     "printf '\\033[1;31mred\\033[0m\\n'; printf 'no newline at exit'"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  // Passed on unchanged, each to its own stream (escapes and CRLF included).
  EXPECT_EQ(result.out, "out1\nout2\n\033[1;31mred\033[0m\nno newline at exit");
  EXPECT_EQ(result.err, "err1\nerr2\r\n");

  auto out = events_of_kind(rec, "stdout");
  auto err = events_of_kind(rec, "stderr");
  EXPECT_EQ(texts(out), (std::vector<std::string>{"out1", "out2", "red", "no newline at exit"}));
  EXPECT_EQ(texts(err), (std::vector<std::string>{"err1", "err2"}));
  // Written in this order: err1 after out1 and before out2 (equal times when the
  // recorder read them in one go).
  EXPECT_LE(out[0].t_ms, err[0].t_ms);
  EXPECT_LE(err[0].t_ms, out[1].t_ms);
  auto reader = open_recording(rec);
  int64_t start = *reader.meta().start_ms;
  int64_t end = *reader.meta().end_ms;
  for (const auto& e : out) {
    EXPECT_GE(e.t_ms, start);
    EXPECT_LE(e.t_ms, end);
    EXPECT_FALSE(e.process_id.has_value());  // a pipe does not say who wrote to it
  }
  EXPECT_EQ(reader.meta().output_capture, "stdout:pipe,stderr:pipe");
}

TEST(CaptureOutput, BinaryOutputPassesThroughAndStoresValidText) {
  TempDir dir;
  std::string blob = dir.file("blob.bin");
  std::string bytes;
  std::mt19937 random(42);
  for (int i = 0; i < 300'000; ++i) {
    bytes += static_cast<char>(random() & 0xFF);
  }
  std::ofstream(blob, std::ios::binary) << bytes;
  std::string rec = dir.file("binary.canopy");
  auto result = run({kCanopy, "record", "-q", "-o", rec, "--capture-output", "--", "cat", blob});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out.size(), bytes.size());
  EXPECT_TRUE(result.out == bytes);
  auto lines = events_of_kind(rec, "stdout");
  size_t newlines = static_cast<size_t>(std::count(bytes.begin(), bytes.end(), '\n'));
  EXPECT_GE(lines.size(), newlines);  // one per newline, plus the tail
  for (const auto& e : lines) {
    EXPECT_TRUE(is_valid_utf8(e.text));
    EXPECT_EQ(e.text.find('\0'), std::string::npos);
  }
}

TEST(CaptureOutput, AReaderThatGoesAwayStopsTheCommandAsWithoutCanopy) {
  // `yes | head -n 2` ends because yes gets SIGPIPE; with canopy in between, canopy
  // passes the closed pipe on instead of reading forever.
  TempDir dir;
  std::string rec = dir.file("pipe.canopy");
  auto result = run({"sh", "-c", kCanopy + " record -q --capture-output -o " + rec + " -- yes | head -n 2"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "y\ny\n");
  auto reader = open_recording(rec);
  EXPECT_EQ(reader.meta().exit_signal, SIGPIPE);
  auto lines = events_of_kind(rec, "stdout");
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](const auto& e) { return e.text != "y"; }), 0);
}

TEST(CaptureOutput, ACommandOnATerminalStillSeesATerminal) {
  // script(1) gives canopy a terminal; the command must get one too (line buffering
  // and colours as without canopy), and its lines are stored all the same.
  TempDir dir;
  std::string rec = dir.file("tty.canopy");
  std::string command = kCanopy + " record -q -o " + rec +
                        " --capture-output -- sh -c 'test -t 1 && echo stdout is a terminal'";
  auto result = run({"script", "-qec", command, "/dev/null"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.out.find("stdout is a terminal"), std::string::npos) << result.out;
  EXPECT_EQ(texts(events_of_kind(rec, "stdout")), (std::vector<std::string>{"stdout is a terminal"}));
  EXPECT_EQ(open_recording(rec).meta().output_capture.value_or("").substr(0, 10), "stdout:pty");
}

TEST(CaptureOutput, NotWithPid) {
  auto result = run({kCanopy, "record", "--capture-output", "--pid", "1"});
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_NE(result.err.find("--capture-output needs a command to run"), std::string::npos) << result.err;
}

TEST(Mark, FromTheCommandAGrandchildAndTheShellRecipe) {
  TempDir dir;
  std::string rec = dir.file("marks.canopy");
  std::string script = kCanopy + " mark 'phase 1: compile'; sh -c 'sh -c \"" + kCanopy +
                       " mark phase 2: linking\"'; echo \"via the shell\" >> \"$CANOPY_MARK\"; "
                       "echo \"$CANOPY_MARK\"";
  auto result = run({kCanopy, "record", "-q", "-o", rec, "--", "sh", "-c", script});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto marks = events_of_kind(rec, "mark");
  ASSERT_EQ(texts(marks), (std::vector<std::string>{"phase 1: compile", "phase 2: linking", "via the shell"}));
  // `canopy mark` names its caller: the recorded shell, process 1.
  EXPECT_EQ(marks[0].process_id, 1);
  auto reader = open_recording(rec);
  for (const auto& m : marks) {
    EXPECT_GE(m.t_ms, *reader.meta().start_ms);
    EXPECT_LE(m.t_ms, *reader.meta().end_ms);
  }
  // The marker file and its private directory are gone with the recording.
  std::string mark_path = result.out.substr(0, result.out.find('\n'));
  ASSERT_FALSE(mark_path.empty());
  EXPECT_FALSE(std::filesystem::exists(mark_path));
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(mark_path).parent_path()));

  // That recording has ended: said clearly, non-zero.
  auto late = run({kCanopy, "mark", "too late"}, with_mark_variable(mark_path));
  EXPECT_EQ(late.exit_status, 1);
  EXPECT_EQ(late.err, "canopy: the recording that set CANOPY_MARK=" + mark_path + " has ended\n");
}

TEST(Mark, OutsideARecording) {
  auto result = run({kCanopy, "mark", "hello"}, with_mark_variable(""));
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_EQ(result.err,
            "canopy: not inside a canopy recording (CANOPY_MARK is not set): run the command with 'canopy record -- "
            "COMMAND'\n");
  // A marker file left by a recorder that was killed: nobody holds its lock.
  TempDir dir;
  std::string stale = dir.file("marks");
  std::ofstream(stale) << "";
  auto dead = run({kCanopy, "mark", "hello"}, with_mark_variable(stale));
  EXPECT_EQ(dead.exit_status, 1);
  EXPECT_EQ(dead.err, "canopy: the recording that set CANOPY_MARK=" + stale + " has ended\n");
  EXPECT_EQ(std::filesystem::file_size(stale), 0u);
}

}  // namespace
}  // namespace canopy::testing
