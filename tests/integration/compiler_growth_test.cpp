// A real build of a few C++ files under `canopy record`: each compiler's memory rises
// until it exits, which is not memory kept. The growth analysis must judge them and
// claim nothing.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

// Two translation units that instantiate <regex> (seconds of cc1plus each, hundreds of
// MiB), two light ones, and the Makefile that builds them two at a time.
void write_project(const TempDir& dir) {
  write_file(dir.file("match.cpp"), R"cpp(#include <iostream>
#include <regex>
#include <string>
int main(int argc, char** argv) {
  std::regex pattern(argc > 1 ? argv[1] : "a+b");
  std::cout << std::regex_match(std::string("aab"), pattern) << "\n";
}
)cpp");
  write_file(dir.file("replace.cpp"), R"cpp(#include <iostream>
#include <regex>
#include <string>
int main() {
  std::cout << std::regex_replace(std::string("2024-11-25"), std::regex("(\\d+)-(\\d+)-(\\d+)"), "$3.$2.$1") << "\n";
}
)cpp");
  for (const char* name : {"hello", "words"}) {
    write_file(dir.file(std::string(name) + ".cpp"), R"cpp(#include <iostream>
#include <string>
#include <vector>
int main() {
  std::vector<std::string> words{"a", "rose"};
  for (const auto& word : words) std::cout << word << "\n";
}
)cpp");
  }
  write_file(dir.file("Makefile"), "all: match.o replace.o hello.o words.o\n%.o: %.cpp\n\tg++ -O2 -c $< -o $@\n");
}

TEST(CompilerGrowth, ARealBuildGetsNoClaim) {
  TempDir dir;
  write_project(dir);
  std::string path = dir.file("build.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--", "make", "-j2", "-C", dir.path()});
  ASSERT_EQ(result.exit_status, 0) << result.err;

  auto report = run({kCanopy, "report", "--json", path});
  ASSERT_EQ(report.exit_status, 0) << report.err;
  auto growth = nlohmann::json::parse(report.out)["growth"];
  // Only a process that lived min_span_ms is judged. When the build takes just over
  // that, make itself is, while every compiler finished sooner: nothing to test here.
  const int64_t min_span_ms = growth["min_span_ms"].get<int64_t>();
  bool compiler_judged = false;
  auto processes = open_recording(path).processes();
  ASSERT_TRUE(processes) << processes.error().message;
  for (const store::ProcessRow& p : *processes) {
    compiler_judged = compiler_judged || (p.name == "cc1plus" && p.last_seen_ms &&
                                          *p.last_seen_ms - p.first_seen_ms >= min_span_ms);
  }
  if (!compiler_judged) {
    GTEST_SKIP() << "every compiler finished within " << min_span_ms << " ms, too soon to judge";
  }
  // The compilers' memory rose, and they exited while still busy with it.
  EXPECT_GE(growth["exited_while_busy"].get<int64_t>(), 1) << growth.dump(2);
  for (const auto& finding : growth["findings"]) {
    EXPECT_EQ(finding["verdict"], "returned") << growth.dump(2);  // came back down: no claim
  }
  auto text = run({kCanopy, "report", path}).out;
  EXPECT_EQ(text.find("grew steadily"), std::string::npos) << text;
  EXPECT_EQ(text.find("still held"), std::string::npos) << text;
  EXPECT_NE(text.find(" rose but exited while still busy with it"), std::string::npos) << text;
}

}  // namespace
}  // namespace canopy::testing
