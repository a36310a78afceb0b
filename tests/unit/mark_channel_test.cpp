#include "record/mark_channel.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <string>
#include <vector>

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

}  // namespace
}  // namespace canopy::record
