// What libcanopy-heap.so says to the recorder and what the recorder answers: the one
// format both sides include, plain structs of fixed size and no code. The library
// connects once per process image to the Unix stream socket named by kSocketVariable
// and sends messages (a MessageHeader, then payload_bytes of payload); the recorder
// sends single-byte commands back. Both ends run on the same machine, so the structs
// travel in its byte order. Times are CLOCK_MONOTONIC nanoseconds, the clock the
// recorder converts kernel timestamps from.
#pragma once

#include <cstdint>

namespace canopy::heap_wire {

// Set by the recorder in the environment of the command it launches.
inline constexpr const char* kSocketVariable = "CANOPY_HEAP_SOCKET";
// Mean bytes between samples; 0 loads the library with sampling off.
inline constexpr const char* kRateVariable = "CANOPY_HEAP_RATE";
inline constexpr const char* kIntervalVariable = "CANOPY_HEAP_INTERVAL_MS";
// auto (frame pointers when the chain proves whole, else libunwind) or dwarf (libunwind).
inline constexpr const char* kUnwindVariable = "CANOPY_HEAP_UNWIND";

inline constexpr uint32_t kMagic = 0x70616568;  // "heap"
inline constexpr uint32_t kVersion = 1;
inline constexpr int kMaxFrames = 64;

enum class MessageType : uint32_t {
  kHello = 1,      // Hello: first, once
  kModules = 2,    // ModuleRecord[]: every loaded object, sent again when one is added
  kStacks = 3,     // StackRecord[]: stacks first seen since the last message
  kTotals = 4,     // StackTotals[]: stacks whose totals changed since the last snapshot
  kSurvivors = 5,  // Survivor[]: sampled allocations alive at a snapshot, first time seen
  kFreed = 6,      // Freed[]: survivors freed since the last snapshot
  kSnapshot = 7,   // SnapshotHeader: closes a snapshot, whose parts came before it
  // Not from the library: `canopy heap dump|on|off PID` on a connection of its own,
  // which the recorder answers with one byte (kControlDone or kControlNotConnected)
  // and closes.
  kControl = 8,
  // StandingAside: first and only, instead of Hello, from a process the library will
  // not profile although it loaded (stand_aside.h).
  kStandingAside = 9,
};

struct MessageHeader {
  uint32_t type;
  uint32_t payload_bytes;
};

struct Hello {
  uint32_t magic;
  uint32_t version;
  int32_t pid;
  uint32_t unwind;             // UnwindMode
  int64_t rate_bytes;          // 0: loaded, sampling off
  uint64_t start_monotonic_ns; // when the library started in this image (a forked child: its fork)
};

enum class UnwindMode : uint32_t { kAuto = 0, kDwarf = 1 };

enum class AsideReason : uint32_t {
  kSanitizer = 1,  // a sanitizer's runtime (ASan, TSan, LSan) is the process's allocator
  kOwnMalloc = 2,  // another malloc comes before the profiler's (the program's own)
};

struct StandingAside {
  uint32_t magic;
  uint32_t version;
  int32_t pid;
  uint32_t reason;              // AsideReason
  uint64_t start_monotonic_ns;  // as Hello's
};

// A loaded ELF object: pc - bias is an address in the file's own address space.
// Followed by build_id_bytes of GNU build-id, then path_bytes of path (no NUL).
struct ModuleRecord {
  uint64_t bias;
  uint64_t begin;  // lowest and highest address of its loaded segments
  uint64_t end;
  uint32_t build_id_bytes;
  uint32_t path_bytes;
};

// Followed by depth uint64_t return addresses, innermost first: the first is the
// return into the code that called the allocation function.
struct StackRecord {
  uint32_t stack_id;
  uint32_t depth;
};

enum class SnapshotReason : uint32_t { kInterval = 1, kPeak = 2, kExit = 3, kRequested = 4 };

// Estimates are sums of size / p and 1 / p over sampled allocations, where p is the
// chance that an allocation of that size was sampled: unbiased for bytes and counts.
// A snapshot's stacks, totals, survivors and frees come first, in messages of their
// own; this one closes it. Every stack a snapshot names was sent before it.
struct SnapshotHeader {
  uint64_t t_monotonic_ns;
  uint32_t reason;  // SnapshotReason
  uint32_t reserved;
  double in_use_bytes;        // estimated, the whole heap
  double peak_in_use_bytes;   // estimated high-water mark so far
  uint64_t samples;           // sampled allocations so far
  uint64_t samples_dropped;   // sampled but not kept: a table was full
};

// Cumulative since the image started.
struct StackTotals {
  uint32_t stack_id;
  uint32_t reserved;
  double allocated_bytes;
  double allocated_count;
  double freed_bytes;
  double freed_count;
};

struct Survivor {
  uint64_t allocation_id;
  uint32_t stack_id;
  uint32_t reserved;
  uint64_t size_bytes;
  double probability;  // that an allocation of this size is sampled
  uint64_t born_monotonic_ns;
};

struct Freed {
  uint64_t allocation_id;
  uint64_t freed_monotonic_ns;
};

// The recorder's commands to the library, one byte each.
inline constexpr char kCommandDump = 'd';
inline constexpr char kCommandSamplingOn = '1';
inline constexpr char kCommandSamplingOff = '0';

struct Control {
  uint32_t magic;
  uint32_t version;
  int32_t pid;       // the process whose library the command is for
  uint32_t command;  // one of the commands above
};
inline constexpr char kControlDone = 'y';
inline constexpr char kControlNotConnected = 'n';  // no library of that PID is connected

}  // namespace canopy::heap_wire
