// The viewer's words beside a process's name: those of one name that read alike show
// one more part of their path until they differ, as each target of a CMake unity
// build compiles a "Unity/unity_0_cxx.cxx". On a real recording file.
#include <gtest/gtest.h>

#include <map>

#include "store/writer.h"
#include "support/temp_dir.h"
#include "web/view_data.h"

namespace canopy::web {
namespace {

using canopy::testing::TempDir;

void add_compile(store::Writer& writer, pid_t pid, const std::string& source) {
  store::ProcessRow row;
  row.pid = pid;
  row.start_ticks = pid;
  row.start_ms = 1000;
  row.first_seen_ms = 1000;
  row.last_seen_ms = 1000;
  row.name = "cc1plus";
  row.cmdline = {"/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "-quiet", source, "-o", "/tmp/cc.s"};
  writer.add_process(row);
}

TEST(ViewProcessWords, ProcessesOfOneNameThatReadAlikeShowOneMorePathPart) {
  TempDir dir;
  std::string path = dir.file("unity.canopy");
  auto writer = store::Writer::create(path, false);
  ASSERT_TRUE(writer) << writer.error().message;
  writer->set_meta({.start_ms = 1000});
  add_compile(*writer, 300, "/b/CMakeFiles/canopy_store.dir/Unity/unity_0_cxx.cxx");
  add_compile(*writer, 301, "/b/CMakeFiles/canopy_web.dir/Unity/unity_0_cxx.cxx");
  add_compile(*writer, 302, "/b/src/json.cpp");
  store::TickRow tick;
  tick.t_ms = 1000;
  writer->add_tick(tick);
  ASSERT_TRUE(writer->finish());

  auto data = load_view_data(path);
  ASSERT_TRUE(data) << data.error().message;
  std::map<int64_t, std::string> short_of;
  for (const auto& p : data->recording["processes"]) {
    short_of[p["pid"].get<int64_t>()] = p["short"].get<std::string>();
  }
  EXPECT_EQ(short_of[300], "canopy_store.dir/Unity/unity_0_cxx.cxx");
  EXPECT_EQ(short_of[301], "canopy_web.dir/Unity/unity_0_cxx.cxx");
  EXPECT_EQ(short_of[302], "src/json.cpp");
}

}  // namespace
}  // namespace canopy::web
