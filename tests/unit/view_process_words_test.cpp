// The viewer's words beside a process's name: those of one name that read alike show
// one more part of their path until they differ, as each target of a CMake unity
// build compiles a "Unity/unity_0_cxx.cxx". On a real recording file.
#include <gtest/gtest.h>

#include <map>

#include "support/temp_dir.h"
#include "support/unity_compiles.h"
#include "web/view_data.h"

namespace canopy::web {
namespace {

using canopy::testing::TempDir;
using canopy::testing::write_unity_compiles;

TEST(ViewProcessWords, ProcessesOfOneNameThatReadAlikeShowOneMorePathPart) {
  TempDir dir;
  std::string path = dir.file("unity.canopy");
  ASSERT_EQ(write_unity_compiles(path), "");

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
