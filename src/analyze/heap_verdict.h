// analyze/: is a stack's memory a leak, or bounded? Judged per process image from its
// snapshots and its sampled allocations, as memleak-style tools judge "outstanding and
// old", but with the history they lack:
//   leak     it kept growing (it rose at kLeakMinRises snapshots or more) and kept
//            what it held: of its sampled allocations alive when it first held half
//            of what it holds now, at least kLeakKeptShare are still alive.
//   bounded  it gave memory back (holds under kGaveBackShare of its high-water mark),
//            or it recycles it (under kRecycledShare of those allocations are still
//            alive: a cache, a pool, a buffer), or it grew at one snapshot and then
//            held flat over kPlateauSnapshots more (state built once).
//   unclear  neither can be told: too few sampled allocations, too few snapshots,
//            or growth at only a couple of snapshots.
// Heap data cannot tell a leak that stopped from a table built over time and kept:
// both grew at several snapshots and kept everything. Such a stack is called a leak
// and the report says when it last grew, for the reader to judge.
// A process's exit snapshot comes after its teardown (an interpreter's finalization,
// static destructors, atexit handlers), which frees what the program held to the end.
// That is not memory given back as it ran: a stack that gave back only in the fall of
// the heap that ends in the exit snapshot is judged as it stood where that fall began,
// and says it was freed at exit. An interval before the exit's own in which the heap
// fell by less than kTeardownFallShare of what the image allocated was still work, not
// teardown: the fall is taken to begin after it.
#pragma once

#include <cstdint>

#include "analyze/heap_history.h"

namespace canopy::analyze {

inline constexpr int64_t kLeakMinRises = 3;
inline constexpr double kLeakKeptShare = 0.8;
inline constexpr double kGaveBackShare = 0.5;
inline constexpr double kRecycledShare = 0.5;
inline constexpr int64_t kPlateauSnapshots = 2;
inline constexpr double kTeardownFallShare = 0.25;
// Fewer sampled allocations than this say nothing about what a stack keeps.
inline constexpr int64_t kVerdictMinSampled = 5;

struct HeapVerdict {
  enum class Kind { kLeak, kBounded, kUnclear };
  enum class Reason {
    kGrewAndKept,     // leak
    kGaveBack,        // bounded
    kRecycled,        // bounded
    kGrewOnce,        // bounded
    kTooFewSamples,   // unclear
    kTooFewSnapshots, // unclear
    kGrewAtFew,       // unclear: rose at 2 snapshots, or at more but kept between the shares
  };
  Kind kind = Kind::kUnclear;
  Reason reason = Reason::kTooFewSamples;
  int64_t rises = 0;            // snapshots at which what it held rose
  int64_t held_bytes = 0;       // estimated, at the judged snapshot
  int64_t peak_bytes = 0;       // its estimated high-water mark up to it
  int64_t half_t_ms = 0;        // when it first held half of held_bytes
  int64_t half_sampled = 0;     // its sampled allocations alive then
  int64_t half_kept = 0;        // ... and still alive at the judged snapshot
  int64_t held_sampled = 0;     // its sampled allocations alive at the judged snapshot
  int64_t last_rise_t_ms = 0;   // the snapshot of its last rise
  int64_t oldest_born_ms = 0;   // its oldest sampled allocation still alive (0: none)
  bool freed_at_exit = false;   // judged where the heap's fall into its exit began
};

// The verdict on `stack_id` in `history`'s image at its snapshot `at` (the last, for
// the image's end).
HeapVerdict judge_heap_stack(const HeapImageHistory& history, int64_t stack_id, size_t at);

const char* verdict_kind_name(HeapVerdict::Kind kind);      // "leak", "bounded", "unclear"
const char* verdict_reason_name(HeapVerdict::Reason reason);  // "grew-and-kept", ...

}  // namespace canopy::analyze
