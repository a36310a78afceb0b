// The frames under each stack of canopy heap's text (report/heap_format.h): a stripped
// program's frames that nothing names share a line, so that --frames is not spent on
// "?" after "?", and each says where in its object it is.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/heap_format.h"

namespace canopy::report {
namespace {

StackFrames frames_of(std::vector<FrameText> named) {
  return [named](int64_t) { return named; };
}

TEST(HeapFramesText, UnnamedFramesInARowInOneObjectShareALine) {
  std::string text = heap_frames_text(1, frames_of({{"xcalloc", "cc1plus"},
                                                     {"?", "cc1plus"},
                                                     {"?", "cc1plus"},
                                                     {"?", "cc1plus"},
                                                     {"?", "libc.so.6"},
                                                     {"toplev::main(int, char**)", "cc1plus"}}));
  EXPECT_EQ(text,
            "        xcalloc  cc1plus\n"
            "        ?  cc1plus  (3 frames)\n"
            "        ?  libc.so.6\n"
            "        toplev::main(int, char**)  cc1plus\n");
}

TEST(HeapFramesText, UnnamedFramesShowWhereInTheirObjectTheyAre) {
  // Two stacks of a stripped program that differ only below its first frame.
  auto text_with = [](const char* second) {
    return heap_frames_text(1, frames_of({{"malloc", "libc.so.6"},
                                          {"?", "stress-ng", false, "0x4a1f3"},
                                          {"?", "stress-ng", false, second},
                                          {"start_thread", "pthread_create.c:442"}}));
  };
  EXPECT_EQ(text_with("0x4a0c0"),
            "        malloc  libc.so.6\n"
            "        ?  stress-ng+0x4a1f3 +0x4a0c0  (2 frames)\n"
            "        start_thread  pthread_create.c:442\n");
  EXPECT_EQ(text_with("0x51b00"),
            "        malloc  libc.so.6\n"
            "        ?  stress-ng+0x4a1f3 +0x51b00  (2 frames)\n"
            "        start_thread  pthread_create.c:442\n");
  nlohmann::json json = heap_frames_json(1, frames_of({{"?", "stress-ng", false, "0x4a1f3"}, {"main", "m.c:3"}}));
  EXPECT_EQ(json.dump(), R"([{"address":"0x4a1f3","function":"?","inlined":false,"location":"stress-ng"},)"
                         R"({"function":"main","inlined":false,"location":"m.c:3"}])");
}

TEST(HeapFramesText, NamedFramesAreEachALineEvenWhenTheyRepeat) {
  // Recursion: the same function at every frame is the shape of the stack, kept whole.
  std::string text = heap_frames_text(1, frames_of({{"walk", "tree.c:10"}, {"walk", "tree.c:10"}}));
  EXPECT_EQ(text, "        walk  tree.c:10\n        walk  tree.c:10\n");
}

}  // namespace
}  // namespace canopy::report
