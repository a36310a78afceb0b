// The CPU and heap profiles as the viewer draws them (web/API.md, /api/cpu/* and
// /api/heap/*): loaded and named once per recording, when the viewer or the HTML report
// opens it, so that each request only sums. Every stack is a node of one merged stack
// tree per profile (analyze/stack_tree.h); a CPU sample keeps its time, its process and
// its node; a heap stack its node. Immutable after load: the server's threads share it.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyze/heap_history.h"
#include "analyze/stack_tree.h"
#include "common/result.h"
#include "store/reader.h"

namespace canopy::web {

// The heat map's rows: each second of the recording cut in 50 cells of 20 ms, as
// FlameScope draws it.
inline constexpr int64_t kHeatRowMs = 20;
inline constexpr int64_t kHeatRows = 1000 / kHeatRowMs;
// A flame graph leaves out frames narrower than this share of its root (their figures
// stay in their parent's total), so that a request's answer stays small.
inline constexpr int64_t kFlameMinShareDivisor = 5000;

struct CpuSamplePoint {
  int64_t t_ms = 0;
  int64_t process_id = 0;  // 0 when no process of the recording fits (analyze::CpuSampleProcesses)
  int32_t node = 0;        // the stack's leaf in CpuView::stacks
};

struct CpuView {
  bool recorded = false;
  std::string sampling;  // the recording's meta: "99 Hz, user time only ..."
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  analyze::StackTree stacks;
  std::vector<CpuSamplePoint> samples;  // in time order
};

struct HeapView {
  store::HeapProfile profile;
  std::vector<analyze::HeapImageHistory> histories;  // point into profile
  std::vector<store::ProcessRow> processes;
  std::unordered_map<int64_t, int64_t> process_of_image;  // image id -> process id
  analyze::StackTree stacks;
  std::unordered_map<int64_t, int32_t> node_of_stack;
};

struct ProfileView {
  CpuView cpu;
  std::unique_ptr<HeapView> heap;  // null without a heap profile
};

// The profiles of `reader`'s recording, whose process rows are `processes` (the
// timeline's: a follower that redoes this does not read them all again).
Result<std::unique_ptr<ProfileView>> load_profile_view(const store::Reader& reader,
                                                      const std::vector<store::ProcessRow>& processes);

// The processes a request asks about: nullopt for the whole tree.
using ProcessSet = std::optional<std::unordered_set<int64_t>>;
// One of process=ID, name=NAME (every process of that name) or subtree=ID (it and its
// descendants), as the viewer's highlight names them; `kind` empty for the tree. An
// error names the unknown process.
Result<ProcessSet> process_set(const std::vector<store::ProcessRow>& processes, const std::string& kind,
                               const std::string& value);

// GET /api/recording's "profiles": what the recording holds, so that the page shows only
// the panes it can fill.
nlohmann::json profiles_summary_json(const ProfileView& view);
// GET /api/cpu/heatmap: samples per (second, row) of the processes asked about.
nlohmann::json cpu_heatmap_json(const CpuView& cpu, const ProcessSet& set);
// GET /api/cpu/flame: the merged stack tree of the samples from from_ms (inclusive) to
// to_ms (exclusive), recording-clock ms, as `canopy profile --from --to` selects them.
nlohmann::json cpu_flame_json(const CpuView& cpu, const ProcessSet& set, int64_t from_ms, int64_t to_ms);
// GET /api/heap/flame: the in-use heap of one process at t_ms, by stack (the image
// alive then, at its last snapshot by then), as `canopy heap --pid P --to T` takes it.
Result<nlohmann::json> heap_flame_json(const HeapView& heap, int64_t process_id, int64_t t_ms);
// GET /api/heap/diff: what grew from from_ms to to_ms: widths the growth of each stack
// that grew, as `canopy heap --pid P --from A --to B` lists them.
Result<nlohmann::json> heap_diff_json(const HeapView& heap, int64_t process_id, int64_t from_ms, int64_t to_ms);

// What `report --html` embeds for its CPU panes, with no server to ask: the heat map's
// cells per process, the stack tree's nodes, and the samples counted per (time bucket,
// process, node), which the page sums as the server does (web/src/profile_model.js).
// Bounded: the buckets are the heat map's 20 ms cells when that keeps the entries
// within max_entries, else the first of 1 s, 10 s, 1 min, 10 min, 1 h that does; the
// cells and entries drop the process (the whole tree only) when even that is too many.
inline constexpr size_t kReportCpuEntries = 250'000;
nlohmann::json cpu_report_json(const CpuView& cpu, size_t max_entries = kReportCpuEntries);
// And for its heap panes: the stack tree's nodes and, per process image, its snapshots
// and each stack's in-use bytes where they changed (HeapImageHistory's change points);
// the page takes a moment and the growth between two as analyze::heap_growth does.
nlohmann::json heap_report_json(const HeapView& heap);

}  // namespace canopy::web
