// JIT symbol maps (/tmp/perf-PID.map): the symbolizer's reading of one, and the
// recorder's choice of the processes whose unnamed code goes to one.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "common/perf_map_path.h"
#include "record/jit_symbol_maps.h"
#include "symbolize/perf_map.h"
#include "symbolize/symbolizer.h"
#include "support/temp_dir.h"

namespace canopy {
namespace {

using symbolize::ModuleRef;
using symbolize::ModuleState;
using symbolize::PerfMap;

PerfMap map_of(const std::string& text) {
  std::istringstream lines(text);
  return PerfMap(lines);
}

std::string name_at(const PerfMap& map, uint64_t address) {
  const std::string* name = map.name_at(address);
  return name ? *name : "(none)";
}

// This test process's own map, removed at the end of the test; the map's name is the
// process's PID, so that tests run side by side never share one.
struct OwnMap {
  testing::RemovedAtEnd file{perf_map_path(::getpid())};
  const std::string& path = file.path();
  OwnMap() { std::filesystem::remove(path); }  // one a test that crashed left
  void write(const std::string& text) const { testing::write_file(path, text); }
};

TEST(PerfMapPath, IsTheTmpFileNamedByThePid) {
  EXPECT_EQ(perf_map_path(4242), "/tmp/perf-4242.map");
  EXPECT_TRUE(is_perf_map_path("/tmp/perf-4242.map"));
  EXPECT_FALSE(is_perf_map_path("/tmp/perf-.map"));
  EXPECT_FALSE(is_perf_map_path("/tmp/perf-42x.map"));
  EXPECT_FALSE(is_perf_map_path("/var/tmp/perf-42.map"));
  EXPECT_FALSE(is_perf_map_path("/tmp/perf-42.map.old"));
}

TEST(PerfMap, NamesTheCodeEachLineCovers) {
  // V8's lines (--perf-basic-prof): names with spaces, addresses without "0x".
  PerfMap map = map_of(
      "7fc2d0005900 118 JS:^fib [eval]:1:13\n"
      "7fc2d0005b80 180 JS:*fib [eval]:1:13\n"
      "0x1000 0x10 with a prefix\r\n");
  EXPECT_EQ(map.names(), 3u);
  EXPECT_EQ(name_at(map, 0x7fc2d0005900), "JS:^fib [eval]:1:13");
  EXPECT_EQ(name_at(map, 0x7fc2d0005a17), "JS:^fib [eval]:1:13");
  EXPECT_EQ(name_at(map, 0x7fc2d0005a18), "(none)") << "the end is not the code's";
  EXPECT_EQ(name_at(map, 0x7fc2d0005cff), "JS:*fib [eval]:1:13");
  EXPECT_EQ(name_at(map, 0x100f), "with a prefix");
  EXPECT_EQ(name_at(map, 0xfff), "(none)");
}

TEST(PerfMap, ALaterLineWinsWhereItOverlapsAnEarlierOne) {
  PerfMap map = map_of(
      "1000 100 old\n"
      "1040 20 new inside\n"
      "10f0 20 new across the end\n"
      "ff0 20 new across the start\n");
  const std::pair<uint64_t, const char*> expected[] = {
      {0xff0, "new across the start"}, {0x100f, "new across the start"}, {0x1010, "old"},
      {0x1040, "new inside"},           {0x105f, "new inside"},           {0x1060, "old"},
      {0x10ef, "old"},                  {0x10f0, "new across the end"},   {0x110f, "new across the end"},
      {0x1110, "(none)"}};
  for (const auto& [address, name] : expected) {
    EXPECT_EQ(name_at(map, address), name) << std::hex << address;
  }
  // The same bytes named twice, as a JIT that reused them writes: the later name.
  PerfMap reused = map_of("2000 10 first\n2000 10 second\n");
  EXPECT_EQ(name_at(reused, 0x2008), "second");
}

TEST(PerfMap, LinesThatDoNotParseAreSkipped) {
  PerfMap map = map_of(
      "zz 10 not hex\n"
      "1000 10\n"
      "1000 0 empty\n"
      "1000\n"
      "\n"
      "1000 10name\n"
      "ffffffffffffffff 10 past the end\n"
      "2000 10 kept\n");
  EXPECT_EQ(map.names(), 1u);
  EXPECT_EQ(name_at(map, 0x1000), "(none)");
  EXPECT_EQ(name_at(map, 0x2000), "kept");
}

TEST(PerfMapSymbolizer, ResolvesAModuleThatIsAPerfMap) {
  OwnMap own;
  own.write("5000 40 jitted_function\n");
  symbolize::Symbolizer symbolizer;
  ModuleRef module{own.path, ""};
  EXPECT_EQ(symbolizer.module_state(module), ModuleState::kResolved);
  // A return address is looked up one byte back, as in an object file.
  auto frames = symbolizer.resolve(module, 0x5040, /*is_return_address=*/true);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].function, "jitted_function");
  EXPECT_EQ(frames[0].file, "");
  auto unnamed = symbolizer.resolve(module, 0x5040, /*is_return_address=*/false);
  ASSERT_EQ(unnamed.size(), 1u) << "a readable map is resolved, whether or not it names the address";
  EXPECT_EQ(unnamed[0].function, "");
  // With a build-id, the path is an object file's, however it is named.
  EXPECT_EQ(symbolizer.module_state({own.path, "0123abcd"}), ModuleState::kNotElf);
}

TEST(PerfMapSymbolizer, AMissingMapOrOneThatIsNoRegularFileNamesNothing) {
  OwnMap own;
  EXPECT_EQ(symbolize::Symbolizer().module_state({own.path, ""}), ModuleState::kMissing);
  // A FIFO would hold a reader that opened it without O_NONBLOCK forever.
  ASSERT_EQ(::mkfifo(own.path.c_str(), 0600), 0);
  symbolize::Symbolizer symbolizer;
  EXPECT_EQ(symbolizer.module_state({own.path, ""}), ModuleState::kMissing);
  EXPECT_TRUE(symbolizer.resolve({own.path, ""}, 0x5000, false).empty());
}

TEST(JitSymbolMaps, AProcessHasAMapWhenItsOwnRegularFileIsThere) {
  OwnMap own;
  EXPECT_FALSE(record::JitSymbolMaps().has_map(::getpid()));
  own.write("5000 40 jitted_function\n");
  EXPECT_TRUE(record::JitSymbolMaps().has_map(::getpid()));
  std::filesystem::remove(own.path);
  std::filesystem::create_directory(own.path);
  EXPECT_FALSE(record::JitSymbolMaps().has_map(::getpid()));
}

}  // namespace
}  // namespace canopy
