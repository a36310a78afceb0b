// What a program started with (probe/program_start.h): the auxiliary vector in either
// word size, the environment read in pieces, and both read from real processes, from
// one alive, one with an empty environment, and one gone.
#include "probe/program_start.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "probe/process_files.h"
#include "support/sleeping_child.h"

namespace canopy::probe {
namespace {

template <typename Word>
std::string auxv_bytes(std::initializer_list<std::pair<Word, Word>> pairs) {
  std::string bytes;
  for (auto [type, value] : pairs) {
    bytes.append(reinterpret_cast<const char*>(&type), sizeof type);
    bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  return bytes;
}

TEST(ProgramStart, OurOwnAuxvIsADynamicProgramsNotInSecureMode) {
  std::ifstream file("/proc/self/auxv", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  auto fields = parse_auxv(bytes);
  ASSERT_TRUE(fields);
  EXPECT_EQ(fields->word_bits, static_cast<int>(sizeof(void*) * 8));
  EXPECT_NE(fields->interpreter_base, 0u);  // the unit tests are dynamically linked
  EXPECT_FALSE(fields->secure);
  EXPECT_EQ(fields->effective_uid, ::geteuid());
}

TEST(ProgramStart, AStaticSetuidProgramsAuxvSaysSo) {
  auto fields = parse_auxv(auxv_bytes<uint64_t>(
      {{AT_PHDR, 0x400040}, {AT_PAGESZ, 4096}, {AT_BASE, 0}, {AT_SECURE, 1}, {AT_ENTRY, 0x401000}, {AT_NULL, 0}}));
  ASSERT_TRUE(fields);
  EXPECT_EQ(fields->word_bits, 64);
  EXPECT_EQ(fields->interpreter_base, 0u);
  EXPECT_TRUE(fields->secure);
}

// A 32-bit program's vector on a 64-bit kernel: pairs of 32-bit words.
TEST(ProgramStart, A32BitProgramsAuxvIsReadInItsWordSize) {
  auto fields = parse_auxv(auxv_bytes<uint32_t>(
      {{AT_SYSINFO, 0xf7f1e560}, {AT_PAGESZ, 4096}, {AT_BASE, 0xf7f20000}, {AT_SECURE, 0}, {AT_NULL, 0}}));
  ASSERT_TRUE(fields);
  EXPECT_EQ(fields->word_bits, 32);
  EXPECT_EQ(fields->interpreter_base, 0xf7f20000u);
  EXPECT_FALSE(fields->secure);
}

TEST(ProgramStart, BytesWithoutAPageSizeAreNoAuxv) {
  EXPECT_FALSE(parse_auxv(""));
  EXPECT_FALSE(parse_auxv(std::string(64, '\0')));  // a zombie's vector, or none
  EXPECT_FALSE(parse_auxv(auxv_bytes<uint64_t>({{AT_PAGESZ, 4095}, {AT_NULL, 0}})));
}

TEST(ProgramStart, AnEnvironmentInPiecesIsReadUpToTheLastNameAskedFor) {
  static constexpr std::string_view kNames[] = {"LD_PRELOAD", "CANOPY_HEAP_SOCKET"};
  EnvironmentScan scan(kNames);
  using namespace std::string_view_literals;
  // An entry split between two pieces; names that only start alike; no trailing NUL.
  EXPECT_TRUE(scan.take("LD_PRELOAD_PATH=/x\0LD_PRELOADX=1\0LD_PRE"sv));
  EXPECT_TRUE(scan.take("LOAD=/a.so:/b.so\0HOME=/root\0CANOPY_HEAP_"sv));
  EXPECT_FALSE(scan.take("SOCKET=/run/s\0PATH=/bin\0"sv));
  scan.finish();
  auto values = std::move(scan).values();
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0], "/a.so:/b.so");
  EXPECT_EQ(values[1], "/run/s");

  EnvironmentScan unfinished(kNames);
  EXPECT_TRUE(unfinished.take("CANOPY_HEAP_SOCKET=/run/s\0LD_PRELOAD=/c.so"sv));
  unfinished.finish();
  auto last = std::move(unfinished).values();
  EXPECT_EQ(last[0], "/c.so");
  EXPECT_EQ(last[1], "/run/s");
}

TEST(ProgramStart, ALiveProcessIsReadAndAGoneOneIsGone) {
  // Past two of read_environment's pieces, with the variables at the end.
  std::vector<std::string> environment;
  for (int i = 0; i < 300; ++i) {
    environment.push_back("FILLER_" + std::to_string(i) + "=" + std::string(30, 'x'));
  }
  environment.push_back("LD_PRELOAD=");
  environment.push_back("CANOPY_HEAP_SOCKET=/run/canopy/heap.sock");
  testing::SleepingChild child(environment);
  ProcessFiles* files = child.files();
  ASSERT_TRUE(files);
  AuxvRead auxv = files->read_auxv();
  EXPECT_EQ(auxv.access, Access::kRead);
  EXPECT_NE(auxv.fields.interpreter_base, 0u);
  static constexpr std::string_view kNames[] = {"LD_PRELOAD", "CANOPY_HEAP_SOCKET", "HOME"};
  EnvironmentRead read = files->read_environment(kNames);
  EXPECT_EQ(read.access, Access::kRead);
  ASSERT_EQ(read.values.size(), 3u);
  EXPECT_EQ(read.values[0], "");
  EXPECT_EQ(read.values[1], "/run/canopy/heap.sock");
  EXPECT_EQ(read.values[2], std::nullopt);

  child.kill_and_reap();
  EXPECT_EQ(files->read_auxv().access, Access::kGone);
  EXPECT_EQ(files->read_environment(kNames).access, Access::kGone);
}

TEST(ProgramStart, AnEmptyEnvironmentHasNoValues) {
  testing::SleepingChild child({});
  ProcessFiles* files = child.files();
  ASSERT_TRUE(files);
  EXPECT_EQ(files->read_auxv().access, Access::kRead);
  static constexpr std::string_view kNames[] = {"LD_PRELOAD"};
  EnvironmentRead read = files->read_environment(kNames);
  EXPECT_EQ(read.access, Access::kRead);
  ASSERT_EQ(read.values.size(), 1u);
  EXPECT_EQ(read.values[0], std::nullopt);
}

}  // namespace
}  // namespace canopy::probe
