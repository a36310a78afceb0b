// The words that tell a process from others of its name (analyze/short_command.h), on
// command lines as build tools, interpreters and the JVM really run them.
#include "common/short_command.h"

#include <gtest/gtest.h>

#include "common/process_words.h"

namespace canopy::analyze {
namespace {

TEST(ShortCommand, Cc1plusShowsTheSourceFileNotDumpbaseOrTheOutput) {
  const std::vector<std::string> argv = {
      "/usr/libexec/gcc/x86_64-linux-gnu/12/cc1plus", "-quiet", "-I", "/src/include", "-D", "NDEBUG", "-MD",
      "CMakeFiles/x.dir/src/json.cpp.d", "/home/u/nlohmann/src/json.cpp", "-quiet", "-dumpbase", "json.cpp",
      "-dumpbase-ext", ".cpp", "-mtune=generic", "-march=x86-64", "-O2", "-o", "/tmp/ccAbc.s"};
  EXPECT_EQ(short_command(argv, "cc1plus"), "src/json.cpp");
}

// -MD FILE, -D X, -imultiarch X and -dumpdir, as the gcc driver really runs cc1plus.
TEST(ShortCommand, Cc1plusAsTheDriverRunsIt) {
  const std::vector<std::string> argv = {
      "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "-quiet", "-I", "/w/tests", "-imultiarch", "x86_64-linux-gnu", "-MD",
      "CMakeFiles/t.dir/Unity/unity_1_cxx.cxx.d", "-MF", "CMakeFiles/t.dir/Unity/unity_1_cxx.cxx.o.d", "-MT",
      "tests/CMakeFiles/t.dir/Unity/unity_1_cxx.cxx.o", "-D_GNU_SOURCE", "-D", "CANOPY_VERSION=\"0.1.0\"",
      "/w/build/tests/CMakeFiles/t.dir/Unity/unity_1_cxx.cxx", "-quiet", "-dumpdir", "CMakeFiles/t.dir/Unity/",
      "-dumpbase", "unity_1_cxx.cxx.cxx", "-dumpbase-ext", ".cxx", "-mtune=generic", "-O2", "-o", "/tmp/ccs9uQAz.s"};
  EXPECT_EQ(short_command(argv, "cc1plus"), "Unity/unity_1_cxx.cxx");
  // Every target of the build compiles a Unity/unity_1_cxx.cxx: the part before tells which.
  EXPECT_EQ(with_one_more_path_part(argv, "Unity/unity_1_cxx.cxx"), "t.dir/Unity/unity_1_cxx.cxx");
  EXPECT_EQ(with_one_more_path_part(argv, "t.dir/Unity/unity_1_cxx.cxx"), "CMakeFiles/t.dir/Unity/unity_1_cxx.cxx");
}

// Only a path's last parts widen: not words of several arguments, not a whole path, not
// a name that merely ends alike.
TEST(ShortCommand, OneMorePathPartOnlyForAPathsLastParts) {
  EXPECT_EQ(with_one_more_path_part({"cc1", "/a/b/c.c"}, "b/c.c"), "a/b/c.c");
  EXPECT_EQ(with_one_more_path_part({"cc1", "/a/b/c.c"}, "a/b/c.c"), std::nullopt);
  EXPECT_EQ(with_one_more_path_part({"cc1", "x/ab/c.c"}, "b/c.c"), std::nullopt);
  EXPECT_EQ(with_one_more_path_part({"sleep", "1", "2"}, "1 2"), std::nullopt);
  EXPECT_EQ(with_one_more_path_part({"cc1", "/a//b/c.c"}, "b/c.c"), "a/b/c.c");
  EXPECT_EQ(with_one_more_path_part({"cc1", "/" + std::string(80, 'd') + "/b/c.c"}, "b/c.c"), std::nullopt);
}

// Of processes of one name, those whose words read alike grow one path part at a time
// until they differ: two targets' unity sources by their target directory, a third
// deeper; a process of another name, one alone and empty words stay as they are.
TEST(ShortCommand, ProcessesOfOneNameThatReadAlikeAreToldApart) {
  const std::vector<std::vector<std::string>> cmdlines = {
      {"cc1plus", "/b/CMakeFiles/store.dir/Unity/unity_0_cxx.cxx"},
      {"cc1plus", "/b/CMakeFiles/web.dir/Unity/unity_0_cxx.cxx"},
      {"cc1plus", "/b/x/CMakeFiles/web.dir/Unity/unity_0_cxx.cxx"},
      {"as", "/b/CMakeFiles/web.dir/Unity/unity_0_cxx.cxx"},
      {"cc1plus", "/b/src/json.cpp"},
      {"sleep"},
      {"sleep"}};
  std::vector<std::string> words = {"Unity/unity_0_cxx.cxx", "Unity/unity_0_cxx.cxx", "Unity/unity_0_cxx.cxx",
                                    "Unity/unity_0_cxx.cxx", "src/json.cpp", "", ""};
  std::vector<const std::vector<std::string>*> of;
  for (const auto& cmdline : cmdlines) {
    of.push_back(&cmdline);
  }
  tell_apart(words, of, {"cc1plus", "cc1plus", "cc1plus", "as", "cc1plus", "sleep", "sleep"});
  const std::vector<std::string> told_apart = {"store.dir/Unity/unity_0_cxx.cxx",
                                                "b/CMakeFiles/web.dir/Unity/unity_0_cxx.cxx",
                                                "x/CMakeFiles/web.dir/Unity/unity_0_cxx.cxx",
                                                "Unity/unity_0_cxx.cxx",
                                                "src/json.cpp",
                                                "",
                                                ""};
  EXPECT_EQ(words, told_apart);
}

TEST(ShortCommand, DriversShowTheInputWithCompileAndOutputAroundIt) {
  EXPECT_EQ(short_command({"/usr/bin/c++", "-O2", "-o", "x.o", "-c", "/p/lib/a.cc"}, "c++"), "lib/a.cc");
  EXPECT_EQ(short_command({"gcc-12", "-c", "main.c", "-o", "main.o"}, "gcc-12"), "main.c");
  EXPECT_EQ(short_command({"clang++-15", "-std=c++20", "-Xclang", "-ast-dump", "x.cpp"}, "clang++-15"), "x.cpp");
  // gcc's temporary file tells nothing: what it is assembled into does.
  EXPECT_EQ(short_command({"as", "--gdwarf-5", "--64", "-o", "f1.o", "/tmp/ccEn6xYo.s"}, "as"), "f1.o");
  EXPECT_EQ(short_command({"as", "--64", "/tmp/ccX.s"}, "as"), "/tmp/ccX.s");
  EXPECT_EQ(short_command({"as", "-o", "src/x.o", "src/x.s"}, "as"), "src/x.s");
  // Linking: no source, the output; without one, the last plain argument.
  EXPECT_EQ(short_command({"g++", "-o", "app", "a.o", "b.o"}, "g++"), "app");
  EXPECT_EQ(short_command({"cc", "a.o", "b.o"}, "cc"), "b.o");
  // A wrapper's argv[0], the compiler's name.
  EXPECT_EQ(short_command({"/opt/wrap/bin/x", "-c", "k.c"}, "cc1"), "k.c");
}

// A linker's inputs are the same crt files and libraries in every link of a build.
TEST(ShortCommand, LinkersShowTheirOutput) {
  EXPECT_EQ(short_command({"/usr/lib/gcc/x86_64-linux-gnu/12/collect2", "-plugin",
                           "/usr/lib/gcc/x86_64-linux-gnu/12/liblto_plugin.so", "--build-id", "-m", "elf_x86_64",
                           "-pie", "-o", "bin/tools/app", "/usr/lib/x86_64-linux-gnu/Scrt1.o", "f1.o", "-lc"},
                          "collect2"),
            "tools/app");
  EXPECT_EQ(short_command({"/usr/bin/ld", "-plugin", "/usr/lib/gcc/12/liblto_plugin.so", "-o", "app", "a.o"}, "ld"),
            "app");
  EXPECT_EQ(short_command({"ld.lld", "--output=libx.so", "-shared", "x.o"}, "ld.lld"), "libx.so");
  EXPECT_EQ(short_command({"mold", "--output", "out", "x.o"}, "mold"), "out");
  EXPECT_EQ(short_command({"ld", "x.o"}, "ld"), std::nullopt) << "a.out, unnamed";
  EXPECT_TRUE(is_known_program("/usr/bin/ld.gold", "ld.gold"));
}

TEST(ShortCommand, InterpretersShowTheScriptModuleOrCode) {
  EXPECT_EQ(short_command({"/usr/bin/python3", "-u", "tools/gen.py", "--out", "x"}, "python3"), "tools/gen.py");
  EXPECT_EQ(short_command({"python3.11", "-m", "pytest", "-x"}, "python3.11"), "-m pytest");
  EXPECT_EQ(short_command({"sh", "-c", "make -C build   all"}, "sh"), "-c make -C build all");
  EXPECT_EQ(short_command({"node", "/a/b/c/server.js"}, "node"), "c/server.js");
  EXPECT_EQ(short_command({"bash", "--", "/x/y/run.sh"}, "bash"), "y/run.sh");
  // pythonista is no python: its first argument.
  EXPECT_EQ(short_command({"pythonista", "-q", "go"}, "pythonista"), "go");
}

// An option that takes the next argument is passed with it: not "perf" for the script.
TEST(ShortCommand, InterpretersOptionsWithAValueArePassedWithIt) {
  EXPECT_EQ(short_command({"python3.12", "-X", "perf", "app.py"}, "python3.12"), "app.py");
  EXPECT_EQ(short_command({"/usr/bin/python3", "-W", "ignore", "-u", "tools/gen.py"}, "python3"), "tools/gen.py");
  EXPECT_EQ(short_command({"pypy3", "-X", "dev", "-m", "pytest"}, "pypy3"), "-m pytest");
  EXPECT_EQ(short_command({"node", "-r", "ts-node/register", "src/app.ts"}, "node"), "src/app.ts");
  EXPECT_EQ(short_command({"ruby", "-I", "lib", "bin/serve.rb"}, "ruby"), "bin/serve.rb");
  EXPECT_EQ(short_command({"bash", "-o", "pipefail", "ci/run.sh"}, "bash"), "ci/run.sh");
  EXPECT_EQ(short_command({"lua5.4", "-l", "strict", "main.lua"}, "lua5.4"), "main.lua");
  EXPECT_EQ(short_command({"php", "-d", "memory_limit=1G", "artisan"}, "php"), "artisan");
  // Each interpreter's own: bash's -r (a restricted shell) takes no value.
  EXPECT_EQ(short_command({"bash", "-r", "x.sh"}, "bash"), "x.sh");
  // A Python run through a program of another name goes by the process's.
  EXPECT_EQ(short_command({"/opt/venv/bin/app", "-X", "perf", "main.py"}, "python3"), "main.py");
}

TEST(ShortCommand, JavaShowsTheJarOrTheMainClassAfterTheClassPath) {
  EXPECT_EQ(short_command({"/usr/lib/jvm/bin/java", "-Xmx2g", "-jar", "/opt/app/lib/app.jar", "serve"}, "java"),
            "lib/app.jar");
  EXPECT_EQ(short_command({"java", "-cp", "a.jar:b.jar", "org.example.Main", "x"}, "java"), "org.example.Main");
}

TEST(ShortCommand, AnythingElseShowsItsFirstArgumentThatIsNoOption) {
  EXPECT_EQ(short_command({"canopy_workload", "hold", "60", "2000"}, "canopy_workload"), "hold");
  EXPECT_EQ(short_command({"make", "-j8"}, "make"), "-j8");
  EXPECT_EQ(short_command({"make"}, "make"), std::nullopt);
  EXPECT_EQ(short_command({}, "cc1plus"), std::nullopt);
  EXPECT_EQ(short_command({"x", ""}, "x"), std::nullopt);
}

// 40 characters at most, counted as characters, not bytes: "…" for what is cut.
TEST(ShortCommand, AProcessRetitledBySetproctitleShowsItsTitleAfterItsName) {
  EXPECT_EQ(short_command({"nginx: worker process"}, "nginx"), "worker process");
  EXPECT_EQ(short_command({"postgres: checkpointer "}, "postgres"), "checkpointer");
  EXPECT_EQ(short_command({"stress-ng-cpu [run]"}, "stress-ng-cpu"), "[run]");
  EXPECT_EQ(short_command({"/usr/lib/chromium/chromium --type=renderer --lang=en-US"}, "chromium"),
            "--type=renderer --lang=en-US");
  // The kernel cuts a name to 15 characters.
  EXPECT_EQ(short_command({"systemd-journald: flushing"}, "systemd-journal"), "flushing");
  EXPECT_EQ(process_words({"nginx: worker process"}, "nginx"), "worker process");
  EXPECT_EQ(process_title("postgres", {"postgres: walwriter"}), "postgres walwriter");
  // Not titles: a program whose path has a space, a title alone, several arguments.
  EXPECT_EQ(short_command({"/opt/My Tools/run"}, "run"), std::nullopt);
  EXPECT_EQ(short_command({"nginx:"}, "nginx"), std::nullopt);
  EXPECT_EQ(short_command({"make all", "-j8"}, "make"), "-j8");
}

TEST(ShortCommand, LongWordsAreClippedToFortyCharacters) {
  EXPECT_EQ(short_path("/w/x/" + std::string(60, 'a') + ".cpp"), "x/" + std::string(37, 'a') + "\u2026");
  EXPECT_EQ(short_path("/w/x/" + std::string(34, 'a') + ".cpp"), "x/" + std::string(34, 'a') + ".cpp");
  std::string accented;
  for (int i = 0; i < 45; ++i) {
    accented += "\u00e9";
  }
  const std::string clipped = *short_command({"tool", accented}, "tool");
  EXPECT_EQ(clipped, accented.substr(0, 39 * 2) + "\u2026");
}

}  // namespace
}  // namespace canopy::analyze
