// Every flag that takes a number, a size, a duration or an address refuses a value
// outside what it accepts in one line naming the flag, the value and the range, before
// anything runs: `canopy record` exits 125 (its own failure, apart from any status
// of the command), the other commands 2 (a bad command line).
#include <gtest/gtest.h>

#include <filesystem>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

struct Case {
  std::vector<std::string> flag_and_value;
  std::string error;  // without "canopy: " and the newline
};

TEST(FlagValues, RecordRefusesBadValuesInOneLineAnd125) {
  const std::vector<Case> cases = {
      {{"--timeout", "0s"}, "--timeout '0s': must be at least 1ms"},
      {{"--timeout", "-3s"}, "--timeout '-3s': must be at least 1ms"},
      {{"--timeout", "-1ms"}, "--timeout '-1ms': must be at least 1ms"},
      {{"--timeout", "10"}, "--timeout '10': not a duration such as 10m, 90s or 500ms"},
      {{"--timeout", "1x"}, "--timeout '1x': not a duration such as 10m, 90s or 500ms"},
      {{"--cpu-time", "0s"}, "--cpu-time '0s': must be at least 1ms"},
      {{"--kill-grace", "-1s"}, "--kill-grace '-1s': must be at least 0s"},
      {{"--memory-limit", "0"}, "--memory-limit '0': must be at least 4K"},
      {{"--memory-limit", "-1M"}, "--memory-limit '-1M': must be at least 4K"},
      {{"--memory-limit", "lots"}, "--memory-limit 'lots': not a size such as 2G or 512M"},
      {{"--memory-limit", "99999999E"}, "--memory-limit '99999999E': too large"},
      {{"--swap-limit", "-1"}, "--swap-limit '-1': must be at least 0"},
      {{"--pid", "0"}, "--pid '0': must be from 1 to 4194304"},
      {{"--pid", "-5"}, "--pid '-5': must be from 1 to 4194304"},
      {{"--pid", "abc"}, "--pid 'abc': not a whole number"},
      {{"--duration", "0s"}, "--duration '0s': must be at least 1ms"},
      {{"--duration", "1m"},
       "--duration is for a process canopy attaches to (--pid): a command it runs is recorded to its end (--timeout "
       "stops it)"},
      {{"--max-processes", "0"}, "--max-processes '0': must be at least 1"},
      {{"--interval", "0"}, "--interval '0': must be from 1ms to 1h"},
      {{"--interval", "2h"}, "--interval '2h': must be from 1ms to 1h"},
      {{"--interval", "fast"}, "--interval 'fast': not an interval such as 250ms or 2s (a bare number is milliseconds)"},
      {{"--pss-interval", "0"}, "--pss-interval '0': must be from 1ms to 1h"},
      {{"--cpu-limit", "0"}, "--cpu-limit '0': must be from 0.1 to 100000"},
      {{"--cpu-limit", "half"}, "--cpu-limit 'half': not a number"},
      {{"--nice", "20"}, "--nice '20': must be from -20 to 19"},
      {{"--metrics", "nonsense"},
       "--metrics 'nonsense': the port 'nonsense' is not a number from 0 to 65535 (ADDR:PORT, :PORT or PORT)"},
      {{"--metrics", ":70000"},
       "--metrics ':70000': the port '70000' is not a number from 0 to 65535 (ADDR:PORT, :PORT or PORT)"},
      {{"--metrics", "1.2.3:9464"},
       "--metrics '1.2.3:9464': '1.2.3' is not an IPv4 address (write an IPv6 one in brackets: [::1]:PORT)"},
      {{"--metrics", "[::g]:9464"}, "--metrics '[::g]:9464': '::g' is not an IPv6 address"},
      {{"--metrics-top", "0"}, "--metrics-top '0': must be from 1 to 1000"},
      {{"--serve=:70000"}, "--serve ':70000': the port '70000' is not a number from 0 to 65535 (ADDR:PORT, :PORT or PORT)"},
      {{"--serve=1.2.3:0"},
       "--serve '1.2.3:0': '1.2.3' is not an IPv4 address (write an IPv6 one in brackets: [::1]:PORT)"},
  };
  TempDir dir;
  std::string path = dir.file("never.canopy");
  for (const Case& c : cases) {
    std::vector<std::string> argv = {kCanopy, "record", "-o", path};
    argv.insert(argv.end(), c.flag_and_value.begin(), c.flag_and_value.end());
    argv.insert(argv.end(), {"--", kWorkload, "exit", "0"});
    auto result = run(argv);
    EXPECT_EQ(result.exit_status, 125) << c.error;
    EXPECT_EQ(result.err, "canopy: " + c.error + "\n");
    EXPECT_FALSE(std::filesystem::exists(path)) << c.error;
  }
}

TEST(FlagValues, OtherCommandsRefuseBadValuesInOneLineAnd2) {
  TempDir dir;
  std::string recording = dir.file("r.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", recording, kWorkload, "exit", "0"}).exit_status, 0);
  struct CommandCase {
    std::vector<std::string> argv;
    std::string error;
  };
  const std::vector<CommandCase> cases = {
      {{"view", recording, "--listen", "999.1.1.1"}, "--listen '999.1.1.1': not an IPv4 or IPv6 address"},
      {{"view", recording, "--listen", "localhost"}, "--listen 'localhost': not an IPv4 or IPv6 address"},
      {{"view", recording, "--port", "70000"}, "--port '70000': must be from 0 to 65535"},
      {{"import", dir.file("x.json"), "--cpus", "0"}, "--cpus '0': must be from 1 to 65536"},
      {{"diff", recording, recording, "--top", "0"}, "--top '0': must be from 1 to 1000000"},
      // An empty file name is no file, not the default one.
      {{"export", recording, "--format", "csv", "-o", ""}, "--output '': an empty path"},
      {{"import", dir.file("x.json"), "-o", ""}, "--output '': an empty path"},
      {{"report", recording, "--html", ""}, "--html '': an empty path"},
      // An empty word or name is refused, not read as the flag not given (the default).
      {{"export", recording, "--format", "csv", "--metric", ""}, "--metric '': an empty value"},
      {{"export", recording, "--format", "pprof", "--at", ""}, "--at '': an empty value"},
      {{"export", recording, "--format", "pprof", "--profile", ""}, "--profile '': an empty value"},
      {{"export", recording, "--format", "pprof", "--command", ""}, "--command '': an empty value"},
      {{"export", recording, "--format", "cutelooker-log", "--kind", ""}, "--kind '': an empty value"},
      {{"heap", recording, "--command", ""}, "--command '': an empty value"},
      {{"profile", recording, "--command", ""}, "--command '': an empty value"},
      // heap's verbs: a PID, and none of the flags of a recording's report.
      {{"heap", "dump", "abc"}, "heap dump 'abc': not a PID (a whole number from 1 to 4194304)"},
      {{"heap", "bogus", "123"}, "heap takes a recording, or dump, on or off and a PID: not 'bogus 123'"},
      {{"heap", "dump", "1", "--top", "3"}, "--top applies to canopy heap RECORDING, not to heap dump"},
      {{"heap", "off", "1", "--json"}, "--json applies to canopy heap RECORDING, not to heap off"},
      // Ignored without its --per-process, it would look like the lists it names.
      {{"profile", recording, "--processes", "3"}, "--processes requires --per-process (see 'canopy profile --help')"},
      // A kind no event has would export nothing, and say nothing.
      {{"export", recording, "--format", "cutelooker-log", "--kind", "logs"},
       "unknown --kind 'logs' (known: log, stdout, stderr, mark, exec, signal, limit)"},
      // "-" is standard output where an output can go there (export), and nowhere a file
      // named "-": it was one, silently.
      {{"import", dir.file("x.json"), "-o", "-"},
       "--output '-': this is written to a file, not to standard output: name one (./- for a file named -)"},
      {{"report", recording, "--html", "-"},
       "--html '-': this is written to a file, not to standard output: name one (./- for a file named -)"},
      // An option the command does not have, with its value: named, not listed among the
      // words CLI11 could not place (the value taken for the recording).
      {{"report", "--top", "5", recording}, "unknown option '--top' (see 'canopy report --help')"},
      {{"heap", recording, "--bogus=1"}, "unknown option '--bogus' (see 'canopy heap --help')"},
      {{"report", recording, recording}, "The following argument was not expected: " + recording +
                                             " (see 'canopy report --help')"},
  };
  for (const CommandCase& c : cases) {
    std::vector<std::string> argv = {kCanopy};
    argv.insert(argv.end(), c.argv.begin(), c.argv.end());
    auto result = run(argv);
    EXPECT_EQ(result.exit_status, 2) << c.error;
    EXPECT_EQ(result.err, "canopy: " + c.error + "\n");
  }
}

// A flag given last, without its value, is named, not described in CLI11's names of types.
TEST(FlagValues, AFlagWithoutItsValueSaysSo) {
  auto record = run({kCanopy, "record", "--pid"});
  EXPECT_EQ(record.exit_status, 125);
  EXPECT_EQ(record.err, "canopy: --pid needs a value (see 'canopy record --help')\n");
  auto heap = run({kCanopy, "heap", "r.canopy", "--top"});
  EXPECT_EQ(heap.exit_status, 2);
  EXPECT_EQ(heap.err, "canopy: --top needs a value (see 'canopy heap --help')\n");
}

// `-o ''` would have named the recording canopy-YYYYMMDD-HHMMSS-PID.canopy; `-o -` made
// a file named "-".
TEST(FlagValues, RecordRefusesAnEmptyOrDashOutputPath) {
  TempDir dir;
  RunOptions options;
  options.cwd = dir.path();
  auto result = run({kCanopy, "record", "-o", "", "--", kWorkload, "exit", "0"}, options);
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_EQ(result.err, "canopy: --output '': an empty path\n");
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "nothing recorded";

  auto dash = run({kCanopy, "record", "-o", "-", "--", kWorkload, "exit", "0"}, options);
  EXPECT_EQ(dash.exit_status, 125);
  EXPECT_EQ(dash.err, "canopy: --output '-': this is written to a file, not to standard output: name one "
                     "(./- for a file named -)\n");
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "no file named -";
  // Named as a path, it is a file like any other.
  auto named = run({kCanopy, "record", "-q", "-o", "./-", "--", kWorkload, "exit", "0"}, options);
  EXPECT_EQ(named.exit_status, 0) << named.err;
  EXPECT_TRUE(std::filesystem::exists(dir.file("-")));
}

// export writes to standard output by default, and with "-".
TEST(FlagValues, ExportTakesADashForStandardOutput) {
  TempDir dir;
  std::string recording = dir.file("r.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", recording, kWorkload, "exit", "0"}).exit_status, 0);
  RunOptions in_dir;
  in_dir.cwd = dir.path();
  auto result = run({kCanopy, "export", recording, "--format", "csv", "-o", "-"}, in_dir);
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out.rfind("t_ms", 0), 0u) << result.out;
  EXPECT_FALSE(std::filesystem::exists(dir.file("-")));
}

// The values at the edges of each range are taken: the checks refuse no less and no
// more than they say.
TEST(FlagValues, RecordTakesTheLeastValueOfEachRange) {
  TempDir dir;
  std::string path = dir.file("edges.canopy");
  auto result = run({kCanopy, "record", "-q", "-o", path, "--kill-grace", "0s", "--timeout", "1h", "--nice", "19",
                     "--max-processes", "1000", "--interval", "1", "--", kWorkload, "exit", "0"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(open_recording(path).meta().interval_ms, 1);
}

}  // namespace
}  // namespace canopy::testing
