// Joining the kernel's frame-pointer walk to a DWARF unwind that stopped short
// (unwind/frame_pointer_join.h), on stacks written out by hand: each frame's pc and the
// rbp it had, and the walk the kernel makes of the same stack, record by record.
//
// The stack in most cases: main called descend, which called itself (one return
// address, kDescend, at every depth), and the innermost descend called a leaf. Each
// function with a record keeps it 0x40 below its caller's.
#include <gtest/gtest.h>

#include <vector>

#include "unwind/frame_pointer_join.h"

namespace canopy::unwind {
namespace {

constexpr uint64_t kLeafPc = 0x1005;     // the sampled instruction
constexpr uint64_t kAfterLeaf = 0x2010;  // in descend, after its call of the leaf
constexpr uint64_t kDescend = 0x2020;    // in descend, after its call of itself
constexpr uint64_t kMain = 0x3030;       // in main, after its call of descend
constexpr uint64_t kLibc = 0x4040;       // in the C library, after its call of main

UnwoundFrame frame(uint64_t pc, uint64_t rbp) { return {pc, false, rbp}; }
UnwoundFrame sampled(uint64_t rbp) { return {kLeafPc, true, rbp}; }

// A leaf with a record of its own: the walk holds every frame, at the DWARF index.
TEST(FramePointerJoin, AWalkThatHoldsEveryFrameResumesAtTheSameDepth) {
  const std::vector<uint64_t> walk = {kLeafPc, kAfterLeaf, kDescend, kDescend, kMain, kLibc};
  const std::vector<UnwoundFrame> dwarf = {sampled(0x7f00), frame(kAfterLeaf, 0x7f40), frame(kDescend, 0x7f80)};
  EXPECT_EQ(frame_pointer_walk_resumes_at(dwarf, walk), 3u);
}

// A leaf without a record (GCC sets none up in a function that calls nothing), or one
// sampled in its prologue or epilogue: rbp is still descend's, and the walk goes from
// the sampled pc to descend's caller. Matching the last DWARF return address, kDescend,
// in the walk would find it one entry too deep and lose a frame of descend.
TEST(FramePointerJoin, ALeafWithoutARecordIsSkippedByTheWalkAndNoFrameIsLost) {
  const std::vector<uint64_t> walk = {kLeafPc, kDescend, kDescend, kMain, kLibc};
  const std::vector<UnwoundFrame> dwarf = {sampled(0x7f40), frame(kAfterLeaf, 0x7f40), frame(kDescend, 0x7f80)};
  EXPECT_EQ(frame_pointer_walk_resumes_at(dwarf, walk), 2u);
}

// Two frames without a record under descend: the vDSO's clock_gettime called by the C
// library's, which keeps no frame pointers.
TEST(FramePointerJoin, SeveralInnermostFramesWithoutRecordsAreAllSkipped) {
  constexpr uint64_t kInLibc = 0x5050;  // in the C library's clock_gettime, after the vDSO call
  const std::vector<uint64_t> walk = {kLeafPc, kDescend, kDescend, kMain};
  const std::vector<UnwoundFrame> dwarf = {sampled(0x7f40), frame(kInLibc, 0x7f40), frame(kAfterLeaf, 0x7f40),
                                           frame(kDescend, 0x7f80), frame(kDescend, 0x7fc0)};
  EXPECT_EQ(frame_pointer_walk_resumes_at(dwarf, walk), 3u);
}

// A function without a record between two with one (a callback called by the C
// library's qsort): the walk skips its caller's return address in the middle.
TEST(FramePointerJoin, AFrameWithoutARecordInTheMiddleIsSkippedThere) {
  constexpr uint64_t kInCallback = 0x6010;  // in the callback, after its call of the leaf
  constexpr uint64_t kInQsort = 0x6020;     // in qsort, after its call of the callback
  constexpr uint64_t kAfterQsort = 0x6030;  // in descend, after its call of qsort
  const std::vector<uint64_t> walk = {kLeafPc, kInCallback, kInQsort, kDescend, kDescend, kMain};
  const std::vector<UnwoundFrame> dwarf = {sampled(0x7e00),          frame(kInCallback, 0x7e40),
                                           frame(kInQsort, 0x7f40),  frame(kAfterQsort, 0x7f40),
                                           frame(kDescend, 0x7f80)};
  EXPECT_EQ(frame_pointer_walk_resumes_at(dwarf, walk), 4u);
}

// rbp held something else than a frame pointer (code built without them uses it as an
// ordinary register): the walk read whatever it pointed at, and is not joined.
TEST(FramePointerJoin, AWalkThatWentAstrayIsNotJoined) {
  const std::vector<uint64_t> walk = {kLeafPc, 0xdead, 0xbeef};
  const std::vector<UnwoundFrame> dwarf = {sampled(0x1234), frame(kAfterLeaf, 0x7f40), frame(kDescend, 0x7f80)};
  EXPECT_EQ(frame_pointer_walk_resumes_at(dwarf, walk), std::nullopt);
}

TEST(FramePointerJoin, AWalkShorterThanTheFramesItShouldHoldIsNotJoined) {
  const std::vector<uint64_t> walk = {kLeafPc, kAfterLeaf};
  const std::vector<UnwoundFrame> dwarf = {sampled(0x7f00), frame(kAfterLeaf, 0x7f40), frame(kDescend, 0x7f80)};
  EXPECT_EQ(frame_pointer_walk_resumes_at(dwarf, walk), std::nullopt);
}

TEST(FramePointerJoin, AnUnknownRbpIsNotGuessed) {
  const std::vector<uint64_t> walk = {kLeafPc, kAfterLeaf, kDescend, kDescend};
  const std::vector<UnwoundFrame> dwarf = {sampled(0x7f00), {kAfterLeaf, false, std::nullopt}, frame(kDescend, 0x7f80)};
  EXPECT_EQ(frame_pointer_walk_resumes_at(dwarf, walk), std::nullopt);
}

// No DWARF frame past the first had a record of its own: where the walk's entries
// belong cannot be checked against any of them.
TEST(FramePointerJoin, FramesThatNeverChangeRbpCannotBeJoined) {
  const std::vector<uint64_t> walk = {kLeafPc, kMain};
  const std::vector<UnwoundFrame> dwarf = {sampled(0), frame(kAfterLeaf, 0), frame(kDescend, 0)};
  EXPECT_EQ(frame_pointer_walk_resumes_at(dwarf, walk), std::nullopt);
}

}  // namespace
}  // namespace canopy::unwind
