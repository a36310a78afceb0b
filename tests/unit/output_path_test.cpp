#include "common/output_path.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace canopy {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using Kind = OutputTarget::Kind;

using testing::write_file;

std::string read_file(const std::string& path) {
  std::ifstream file(path);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

TEST(OutputPath, NothingThereIsCreatedThere) {
  TempDir dir;
  auto target = resolve_output(dir.file("new.csv"), {});
  ASSERT_TRUE(target) << target.error().message;
  EXPECT_EQ(target->kind, Kind::kNew);
  EXPECT_EQ(target->path, dir.file("new.csv"));
}

TEST(OutputPath, ARegularFileIsReplacedOnlyWithForce) {
  TempDir dir;
  std::string path = dir.file("old.csv");
  write_file(path, "old");
  EXPECT_EQ(resolve_output(path, {}).error().message,
            "cannot write '" + path + "': file exists (use --force to replace it)");
  auto forced = resolve_output(path, {true, "", {}});
  ASSERT_TRUE(forced) << forced.error().message;
  EXPECT_EQ(forced->kind, Kind::kRegular);
  EXPECT_EQ(forced->path, fs::canonical(path).string());
}

TEST(OutputPath, SymlinksAreFollowedToWhatTheyLeadTo) {
  TempDir dir;
  fs::create_directory(dir.file("sub"));
  fs::create_symlink("sub/a.csv", dir.file("one"));  // relative to the link's folder
  fs::create_symlink(dir.file("one"), dir.file("two"));
  auto dangling = resolve_output(dir.file("two"), {});
  ASSERT_TRUE(dangling) << dangling.error().message;
  EXPECT_EQ(dangling->kind, Kind::kNew);
  EXPECT_EQ(dangling->path, dir.file("sub/a.csv"));

  write_file(dir.file("sub/a.csv"), "old");
  auto existing = resolve_output(dir.file("two"), {true, "", {}});
  ASSERT_TRUE(existing) << existing.error().message;
  EXPECT_EQ(existing->kind, Kind::kRegular);
  EXPECT_EQ(existing->path, fs::canonical(dir.file("sub/a.csv")).string());

  fs::create_symlink("loop", dir.file("loop"));
  EXPECT_EQ(resolve_output(dir.file("loop"), {}).error().message,
            "cannot write '" + dir.file("loop") + "': Too many levels of symbolic links");
}

TEST(OutputPath, AFifoIsWrittenThroughUnlessOnlyARegularFileWillDo) {
  TempDir dir;
  std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto through = resolve_output(fifo, {});  // without --force: nothing is replaced
  ASSERT_TRUE(through) << through.error().message;
  EXPECT_EQ(through->kind, Kind::kStream);
  EXPECT_EQ(through->path, fifo);
  EXPECT_EQ(resolve_output(fifo, {true, "a recording must be a regular file", {}}).error().message,
            "cannot write '" + fifo + "': a FIFO; a recording must be a regular file");
}

TEST(OutputPath, DirectoriesAndInputsAreRefused) {
  TempDir dir;
  EXPECT_EQ(resolve_output(dir.path(), {true, "", {}}).error().message,
            "cannot write '" + dir.path() + "': is a directory");
  std::string input = dir.file("in.canopy");
  write_file(input, "recording");
  fs::create_hard_link(input, dir.file("hard"));
  fs::create_symlink(input, dir.file("soft"));
  for (const std::string& output : {input, dir.file("hard"), dir.file("soft")}) {
    EXPECT_EQ(resolve_output(output, {true, "", {"x", input}}).error().message,
              "cannot write '" + output + "': it is the input file '" + input + "'");
  }
}

TEST(OutputPath, WithoutForceAFileThatAppearedMeanwhileStays) {
  TempDir dir;
  std::string path = dir.file("out.csv");
  auto target = resolve_output(path, {});
  ASSERT_TRUE(target);
  write_file(path, "theirs");  // another process, between the check and the rename
  std::string temporary = dir.file("out.csv.tmp");
  write_file(temporary, "ours");
  EXPECT_EQ(place_output(temporary, *target, path, /*force=*/false).error().message,
            "cannot write '" + path + "': file exists (use --force to replace it)");
  EXPECT_EQ(read_file(path), "theirs");
  ASSERT_TRUE(place_output(temporary, *target, path, /*force=*/true));
  EXPECT_EQ(read_file(path), "ours");
  EXPECT_FALSE(fs::exists(temporary));
}

}  // namespace
}  // namespace canopy
