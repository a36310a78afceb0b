// The heap profile's rows (record --heap): what each profiled process image sampled,
// as libcanopy-heap.so sent it and the recorder resolved it. Stacks are shared by
// every process of the recording: a frame is a loaded object (path and build-id)
// and an address in that object's own address space, the same in each process that
// loads it, wherever ASLR put it.
//
// Estimates (bytes and counts) are sums of size / p and 1 / p over sampled
// allocations, p being the chance that an allocation of that size was sampled.
//
// Every member has an initializer, so that `{.pid = 7}` names only what it sets
// (GCC's -Wmissing-field-initializers otherwise asks for every member without one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace canopy::store {

// One process image with the library loaded: from its load (or its fork) to its exit
// or exec. A process that execs has one image per program it ran.
struct HeapImageRow {
  int64_t id = 0;
  std::optional<int64_t> process_id = std::nullopt;  // the process table's row, when the recorder knew it
  int64_t pid = 0;
  int64_t started_ms = 0;
  int64_t rate_bytes = 0;        // mean bytes between samples; 0 = sampling off
  std::string unwind = "";       // "auto" or "dwarf"
  std::optional<int64_t> ended_ms = std::nullopt;
  // "exit": the library's last snapshot at exit; "lost": the connection ended without
  // it (exec, _exit, a signal, SIGKILL), and the heap after the last snapshot is unknown.
  // Stored as end_reason: END is an SQL keyword.
  std::optional<std::string> end = std::nullopt;
  int64_t samples = 0;
  int64_t samples_dropped = 0;   // sampled but not kept: a table of the library was full
};

struct HeapModuleRow {
  int64_t id = 0;
  std::string path = "";
  std::string build_id = "";  // hex, empty when the object has none
};

struct HeapFrameRow {
  int64_t id = 0;
  std::optional<int64_t> module_id = std::nullopt;  // empty: in no loaded object (rel_pc is then absolute)
  int64_t rel_pc = 0;  // the address in the object's own address space
};

struct HeapStackRow {
  int64_t id = 0;
  std::vector<int64_t> frame_ids = {};  // innermost first; every one a return address
};

struct HeapSnapshotRow {
  int64_t id = 0;
  int64_t image_id = 0;
  int64_t t_ms = 0;
  std::string reason = "";  // "interval", "peak", "exit", "requested"
  int64_t in_use_bytes = 0;       // estimated, the whole heap of the image
  int64_t peak_in_use_bytes = 0;  // estimated high-water mark so far
  int64_t samples = 0;            // so far
};

// What one stack had allocated and freed by a snapshot, cumulative since its image
// started. Written only when it changed since that image's previous snapshot: readers
// carry a stack's totals forward through the later snapshots of its image.
struct HeapStackTotalsRow {
  int64_t snapshot_id = 0;
  int64_t stack_id = 0;
  int64_t allocated_bytes = 0;
  int64_t allocated_count = 0;
  int64_t freed_bytes = 0;
  int64_t freed_count = 0;
};

// A sampled allocation still alive at a snapshot: its birth and, once seen, its end.
// Sampled allocations born and freed between two snapshots leave no row, only totals.
struct HeapAllocationRow {
  int64_t id = 0;
  int64_t image_id = 0;
  int64_t stack_id = 0;
  int64_t size_bytes = 0;
  double probability = 1;  // that an allocation of this size is sampled
  int64_t born_ms = 0;
  std::optional<int64_t> freed_ms = std::nullopt;  // empty: alive at the image's last snapshot
};

// A process of the tree whose last program (the one its process row names) left no
// image: why the profiler did not report from it, judged from what the program
// started with (its auxiliary vector and environment) while it ran. One row per such
// process, written as the recording ends.
struct HeapUnprofiledRow {
  int64_t process_id = 0;
  int64_t pid = 0;
  std::string reason = "";  // one of the kUnprofiled* below; a newer canopy may add others
  int64_t rate_bytes = 0;   // the recording's sampling rate: "no samples" means little next to it
};

// No dynamic loader (no PT_INTERP: the kernel handed it no interpreter), so nothing
// to preload into.
inline constexpr const char* kUnprofiledStatic = "static";
// Secure-execution mode (AT_SECURE: setuid, setgid or file capabilities), in which
// the loader ignores a preload given by path; or files closed to the recorder, which
// only a change of credentials at exec does to a process of its own tree.
inline constexpr const char* kUnprofiledSetuid = "setuid";
// Its environment had lost the profiler: LD_PRELOAD without it, or no socket to report
// to (env -i, sudo, a wrapper that builds the environment anew).
inline constexpr const char* kUnprofiledEnvironment = "environment";
// The profiler was to load, and sent nothing: the program allocated too little to be
// sampled before it ended (sampling connects on the first sample).
inline constexpr const char* kUnprofiledNoSamples = "no samples";
// Built with a sanitizer (ASan, TSan, LSan) whose runtime is its allocator: the
// profiler loaded and stood aside, so that the sanitizer's reports stay as they are.
inline constexpr const char* kUnprofiledSanitizer = "sanitizer";
// Its malloc came before the profiler's: the program defines its own (Chromium's
// PartitionAlloc, mold's mimalloc, a static tcmalloc or jemalloc), or a library preloaded
// ahead of the profiler does. The profiler loaded and stood aside.
inline constexpr const char* kUnprofiledOwnMalloc = "own malloc";
// A word size other than the profiler's (a 32-bit program): the loader skips it.
inline constexpr const char* kUnprofiled32Bit = "32-bit";
inline constexpr const char* kUnprofiled64Bit = "64-bit";
// Started as another user than the recorder's, and not root (su USER -c, runuser,
// setpriv --reuid): the recorder's socket is in a directory only its own user may enter.
inline constexpr const char* kUnprofiledOtherUser = "other user";
// Gone before the recorder could look at it.
inline constexpr const char* kUnprofiledUnknown = "unknown";

// Everything heap of a recording, as `canopy heap` and the exports read it. Ids run
// from 1 without gaps in every table: images, modules, frames and stacks are in id
// order, the row of id i at [i - 1].
struct HeapProfile {
  std::vector<HeapImageRow> images;
  std::vector<HeapModuleRow> modules;
  std::vector<HeapFrameRow> frames;
  std::vector<HeapStackRow> stacks;
  std::vector<HeapSnapshotRow> snapshots;      // by image, then time
  std::vector<HeapStackTotalsRow> totals;      // by snapshot id, then stack id
  std::vector<HeapAllocationRow> allocations;  // by image, then birth
  std::vector<HeapUnprofiledRow> unprofiled;   // by process id
  // Whether the recording says which processes were not profiled: a heap recording
  // made before canopy did has no heap_unprofiled table.
  bool unprofiled_recorded = false;
};

}  // namespace canopy::store
