#include "record/mark_channel.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/scoped_resource.h"
#include "support/temp_dir.h"

namespace canopy::record {
namespace {

void append(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);
}

bool wakes(int fd) {
  pollfd entry{fd, POLLIN, 0};
  return ::poll(&entry, 1, 0) == 1;
}

std::vector<std::string> read_texts(MarkChannel& channel) {
  std::vector<std::string> texts;
  channel.read_new(RecordingClock{}, [&](const Mark& mark) { texts.push_back(mark.text); });
  return texts;
}

// The recorder stops the wakeups once it samples no more; the markers written after
// must still be read by its last look at the file.
TEST(MarkChannel, AfterStopWatchingNoWakeupsButEveryLineIsRead) {
  auto channel = MarkChannel::create();
  ASSERT_TRUE(channel) << channel.error().message;
  if (channel->poll_fd() < 0) {
    GTEST_SKIP() << "no inotify watch available (the user's watch limit is reached)";
  }
  append(channel->path(), "building\n");
  EXPECT_TRUE(wakes(channel->poll_fd()));
  EXPECT_EQ(read_texts(*channel), (std::vector<std::string>{"building"}));
  EXPECT_FALSE(wakes(channel->poll_fd()));

  channel->stop_watching();
  EXPECT_EQ(read_texts(*channel), std::vector<std::string>{});  // drains the watch's removal
  append(channel->path(), "linking\n");
  append(channel->path(), "done\n");
  EXPECT_FALSE(wakes(channel->poll_fd()));
  EXPECT_EQ(read_texts(*channel), (std::vector<std::string>{"linking", "done"}));
  channel->stop_watching();  // twice is harmless
  EXPECT_EQ(read_texts(*channel), std::vector<std::string>{});
}

// A recorder's directory as it leaves it: its marks file, and with --heap the profiler's
// socket (a plain file will do: only its name matters here), made `age_s` seconds ago.
std::string channel_directory(const std::string& base, const std::string& suffix, time_t age_s) {
  const std::string dir = base + "/canopy-" + suffix;
  std::filesystem::create_directory(dir);
  for (const char* name : {"marks", kHeapSocketName}) {
    ScopedFd(::open((dir + "/" + name).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  }
  const timespec then[2] = {{::time(nullptr) - age_s, 0}, {::time(nullptr) - age_s, 0}};
  ::utimensat(AT_FDCWD, dir.c_str(), then, 0);
  return dir;
}

// Points the channel's base directory at `dir` for one test ($XDG_RUNTIME_DIR comes first).
class BaseDirectory {
 public:
  explicit BaseDirectory(const std::string& dir) {
    for (const char* name : {"XDG_RUNTIME_DIR", "TMPDIR"}) {
      const char* value = ::getenv(name);
      saved_.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
      ::setenv(name, dir.c_str(), 1);
    }
  }
  ~BaseDirectory() {
    for (const auto& [name, value] : saved_) {
      value ? ::setenv(name, value->c_str(), 1) : ::unsetenv(name);
    }
  }
  BaseDirectory(const BaseDirectory&) = delete;
  BaseDirectory& operator=(const BaseDirectory&) = delete;

 private:
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

// A recorder killed by SIGKILL leaves its directory; the next one removes it, and keeps
// the directories of recorders still running (their marks file locked) and of one that
// may have made its directory but not yet locked its file (made within the minute).
TEST(MarkChannel, ANewRecorderRemovesTheDirectoriesOfKilledOnes) {
  canopy::testing::TempDir base;
  const std::string killed = channel_directory(base.path(), "Killed", 600);
  const std::string running = channel_directory(base.path(), "Runnin", 600);
  const std::string starting = channel_directory(base.path(), "Starts", 0);
  const std::string foreign = channel_directory(base.path(), "Extras", 600);
  ScopedFd(::open((foreign + "/notes.txt").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  ScopedFd held(::open((running + "/marks").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_EQ(::flock(held.get(), LOCK_EX | LOCK_NB), 0);

  BaseDirectory pointed(base.path());
  auto channel = MarkChannel::create();
  ASSERT_TRUE(channel) << channel.error().message;
  EXPECT_EQ(std::filesystem::path(channel->directory()).parent_path(), base.path());
  EXPECT_FALSE(std::filesystem::exists(killed));
  EXPECT_TRUE(std::filesystem::exists(running + "/marks"));
  EXPECT_TRUE(std::filesystem::exists(starting + "/marks"));
  EXPECT_TRUE(std::filesystem::exists(foreign + "/notes.txt")) << "only what a recorder puts there is removed";
}

}  // namespace
}  // namespace canopy::record
