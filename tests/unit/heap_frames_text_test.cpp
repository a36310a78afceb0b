// The frames under each stack of canopy heap's text (report/heap_format.h): a stripped
// program's frames that nothing names share a line, so that --frames is not spent on
// "?" after "?".
#include <gtest/gtest.h>

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

TEST(HeapFramesText, NamedFramesAreEachALineEvenWhenTheyRepeat) {
  // Recursion: the same function at every frame is the shape of the stack, kept whole.
  std::string text = heap_frames_text(1, frames_of({{"walk", "tree.c:10"}, {"walk", "tree.c:10"}}));
  EXPECT_EQ(text, "        walk  tree.c:10\n        walk  tree.c:10\n");
}

}  // namespace
}  // namespace canopy::report
