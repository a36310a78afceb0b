#include "web/profile_view.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "analyze/cpu_profile.h"
#include "analyze/heap_coverage.h"
#include "analyze/heap_growth.h"
#include "analyze/heap_summary.h"
#include "common/text.h"
#include "symbolize/cpu_frame_names.h"
#include "symbolize/heap_stack_names.h"

namespace canopy::web {
namespace {

using nlohmann::json;

// What the summary and the collapsed export call a sample without a user-space frame.
constexpr const char* kNoUserStack = "[no user stack]";
constexpr size_t kHeapFramesNamed = 1000;  // every frame of a stack the heap profiler kept

Status load_cpu(const store::Reader& reader, const std::vector<store::ProcessRow>& processes, CpuView& cpu) {
  ASSIGN_OR_RETURN(store::CpuProfile profile, reader.cpu_profile());
  const store::RecordingMeta& meta = reader.meta();
  cpu.recorded = profile.recorded;
  cpu.sampling = meta.cpu_profile.value_or("");
  cpu.start_ms = meta.start_ms.value_or(profile.samples.empty() ? 0 : profile.samples.front().t_ms);
  cpu.end_ms = meta.end_ms.value_or(profile.samples.empty() ? cpu.start_ms : profile.samples.back().t_ms);
  if (profile.samples.empty()) {
    return Ok{};
  }
  symbolize::CpuFrameNames names(profile);
  const analyze::CpuSampleProcesses process_of(processes);
  std::unordered_map<int64_t, int32_t> node_of_stack;
  for (const store::CpuSampleRow& row : profile.samples) {
    auto known = node_of_stack.find(row.stack_id);
    if (known == node_of_stack.end()) {
      std::vector<std::string> functions = analyze::cpu_stack_functions(
          profile, row.stack_id, [&](int64_t frame_id) { return names.names_of(frame_id); });
      if (functions.empty()) {
        functions.push_back(kNoUserStack);
      }
      known = node_of_stack.emplace(row.stack_id, cpu.stacks.add(functions)).first;
    }
    const store::ProcessRow* process = process_of.of(row);
    cpu.samples.push_back({row.t_ms, process ? process->id : 0, known->second});
  }
  std::stable_sort(cpu.samples.begin(), cpu.samples.end(),
                   [](const CpuSamplePoint& a, const CpuSamplePoint& b) { return a.t_ms < b.t_ms; });
  return Ok{};
}

Status load_heap(const store::Reader& reader, const std::vector<store::ProcessRow>& processes,
                 std::unique_ptr<HeapView>& out) {
  ASSIGN_OR_RETURN(store::HeapProfile profile, reader.heap_profile());
  if (profile.images.empty()) {
    return Ok{};
  }
  auto heap = std::make_unique<HeapView>();
  heap->profile = std::move(profile);
  symbolize::HeapStackNames names(heap->profile);
  heap->histories = analyze::heap_histories(heap->profile, names.stacks_that_read_alike());
  heap->processes = processes;
  for (const store::HeapImageRow& image : heap->profile.images) {
    if (auto process = analyze::heap_image_process(image, processes)) {
      heap->process_of_image[image.id] = process->id;
    }
  }
  for (const store::HeapStackRow& stack : heap->profile.stacks) {
    std::vector<std::string> functions;
    for (const symbolize::NamedFrame& frame : names.frames(stack.id, kHeapFramesNamed)) {
      functions.push_back(symbolize::display_name(frame));
    }
    std::reverse(functions.begin(), functions.end());  // outermost first
    heap->node_of_stack[stack.id] = heap->stacks.add(functions);
  }
  out = std::move(heap);
  return Ok{};
}

bool in_set(const ProcessSet& set, int64_t process_id) { return !set || set->count(process_id) > 0; }

// The tree as nested objects: n (name), v (total), s (self), c (children, by name);
// `extra` adds more figures per node (the diff's before and after). Frames under
// min_total are left out; their figures stay in their parent's v.
json tree_json(const analyze::StackTree& tree, const std::vector<int64_t>& self,
               const std::vector<std::pair<const char*, std::vector<int64_t>>>& extra) {
  const std::vector<int64_t> total = tree.totals(self);
  std::vector<std::vector<int64_t>> extra_totals;
  for (const auto& [key, values] : extra) {
    extra_totals.push_back(tree.totals(values));
  }
  const std::vector<std::vector<int32_t>> children = tree.children();
  const int64_t min_total = std::max<int64_t>(1, total[0] / kFlameMinShareDivisor);
  auto node_json = [&](auto& self_ref, int32_t node) -> json {
    const auto i = static_cast<size_t>(node);
    json out = {{"n", tree.nodes()[i].name}, {"v", total[i]}, {"s", i < self.size() ? self[i] : 0}};
    for (size_t k = 0; k < extra.size(); ++k) {
      out[extra[k].first] = extra_totals[k][i];
    }
    std::vector<int32_t> shown;
    for (int32_t child : children[i]) {
      if (total[static_cast<size_t>(child)] >= min_total) {
        shown.push_back(child);
      }
    }
    std::sort(shown.begin(), shown.end(), [&](int32_t a, int32_t b) {
      return tree.nodes()[static_cast<size_t>(a)].name < tree.nodes()[static_cast<size_t>(b)].name;
    });
    json list = json::array();
    for (int32_t child : shown) {
      list.push_back(self_ref(self_ref, child));
    }
    out["c"] = std::move(list);
    return out;
  };
  return node_json(node_json, 0);
}

// The image of the process alive at t_ms: the last to start by then.
const analyze::HeapImageHistory* image_at(const HeapView& heap, int64_t process_id, int64_t t_ms) {
  const analyze::HeapImageHistory* found = nullptr;
  for (const analyze::HeapImageHistory& history : heap.histories) {
    auto process = heap.process_of_image.find(history.image->id);
    if (process == heap.process_of_image.end() || process->second != process_id ||
        history.image->started_ms > t_ms) {
      continue;
    }
    if (!found || history.image->started_ms >= found->image->started_ms) {
      found = &history;
    }
  }
  return found;
}

// analyze::heap_growth of the one image, every stack that grew (from nothing, for the
// in-use heap): the figures `canopy heap --from --to` prints.
Result<analyze::HeapImageGrowth> image_growth(const HeapView& heap, int64_t process_id, int64_t from_ms,
                                              int64_t to_ms) {
  const analyze::HeapImageHistory* history = image_at(heap, process_id, to_ms);
  if (!history) {
    return Error{"no heap profile of process " + std::to_string(process_id) + " by then"};
  }
  auto growth = analyze::heap_growth({*history}, heap.processes, from_ms, to_ms, std::numeric_limits<size_t>::max());
  if (growth.empty()) {
    return Error{"process " + std::to_string(process_id) + " had no heap snapshot by then"};
  }
  return std::move(growth.front());
}

json image_json(const analyze::HeapImageGrowth& growth, int64_t process_id) {
  return {{"process", process_id}, {"pid", growth.image->pid}, {"image", growth.image->id}};
}

}  // namespace

Result<std::unique_ptr<ProfileView>> load_profile_view(const store::Reader& reader,
                                                      const std::vector<store::ProcessRow>& processes) {
  auto view = std::make_unique<ProfileView>();
  RETURN_IF_ERROR(load_cpu(reader, processes, view->cpu));
  RETURN_IF_ERROR(load_heap(reader, processes, view->heap));
  return view;
}

Result<ProcessSet> process_set(const std::vector<store::ProcessRow>& processes, const std::string& kind,
                               const std::string& value) {
  if (kind.empty()) {
    return ProcessSet();
  }
  std::unordered_set<int64_t> ids;
  if (kind == "name") {
    for (const store::ProcessRow& p : processes) {
      if (p.name == value) {
        ids.insert(p.id);
      }
    }
    if (ids.empty()) {
      return Error{"no process named '" + value.substr(0, 100) + "'"};
    }
    return ProcessSet(std::move(ids));
  }
  auto id = parse_int<int64_t>(value);
  if (!id || *id < 1 || *id > static_cast<int64_t>(processes.size())) {
    return Error{"'" + kind + "' names no process of the recording: '" + value.substr(0, 40) + "'"};
  }
  ids.insert(*id);
  if (kind == "subtree") {
    // Discovery order puts most children after their parents, not all (an adopted
    // orphan): repeat until nothing joins.
    for (bool grew = true; grew;) {
      grew = false;
      for (const store::ProcessRow& p : processes) {
        if (p.parent_id && ids.count(*p.parent_id) && ids.insert(p.id).second) {
          grew = true;
        }
      }
    }
  }
  return ProcessSet(std::move(ids));
}

json profiles_summary_json(const ProfileView& view) {
  json cpu = nullptr;
  if (view.cpu.recorded) {
    cpu = {{"samples", view.cpu.samples.size()}, {"sampling", view.cpu.sampling},
           {"row_ms", kHeatRowMs}, {"rows", kHeatRows}};
  }
  json heap = nullptr;
  if (view.heap) {
    json processes = json::object();
    for (const analyze::HeapImageHistory& history : view.heap->histories) {
      auto process = view.heap->process_of_image.find(history.image->id);
      if (process == view.heap->process_of_image.end() || history.snapshots.empty()) {
        continue;
      }
      json& times = processes[std::to_string(process->second)];
      for (const store::HeapSnapshotRow* snapshot : history.snapshots) {
        times.push_back(snapshot->t_ms);
      }
    }
    // Why a process of the tree has no heap profile, for the page to say when it is
    // highlighted: the recording's word, once it has ended.
    json unprofiled = json::object();
    for (const store::HeapUnprofiledRow& row : view.heap->profile.unprofiled) {
      unprofiled[std::to_string(row.process_id)] = {
          {"reason", row.reason}, {"meaning", analyze::unprofiled_meaning(row.reason, row.rate_bytes)}};
    }
    heap = {{"snapshots", std::move(processes)}, {"unprofiled", std::move(unprofiled)}};
  }
  return {{"cpu", std::move(cpu)}, {"heap", std::move(heap)}};
}

json cpu_heatmap_json(const CpuView& cpu, const ProcessSet& set) {
  std::map<std::pair<int64_t, int64_t>, int64_t> cells;  // (second, row) -> samples
  int64_t samples = 0;
  for (const CpuSamplePoint& sample : cpu.samples) {
    if (!in_set(set, sample.process_id)) {
      continue;
    }
    const int64_t offset_ms = std::max<int64_t>(sample.t_ms - cpu.start_ms, 0);
    ++cells[{offset_ms / 1000, offset_ms % 1000 / kHeatRowMs}];
    ++samples;
  }
  json list = json::array();
  for (const auto& [cell, count] : cells) {
    list.push_back({cell.first, cell.second, count});
  }
  const int64_t span_ms = std::max<int64_t>(cpu.end_ms - cpu.start_ms, 1);
  return {{"start_ms", cpu.start_ms}, {"row_ms", kHeatRowMs}, {"rows", kHeatRows},
          {"seconds", (span_ms + 999) / 1000}, {"samples", samples}, {"cells", std::move(list)}};
}

json cpu_flame_json(const CpuView& cpu, const ProcessSet& set, int64_t from_ms, int64_t to_ms) {
  std::vector<int64_t> self(cpu.stacks.nodes().size(), 0);
  int64_t samples = 0;
  for (const CpuSamplePoint& sample : cpu.samples) {
    if (sample.t_ms >= from_ms && sample.t_ms < to_ms && in_set(set, sample.process_id)) {
      ++self[static_cast<size_t>(sample.node)];
      ++samples;
    }
  }
  return {{"from", from_ms}, {"to", to_ms}, {"samples", samples}, {"tree", tree_json(cpu.stacks, self, {})}};
}

Result<json> heap_flame_json(const HeapView& heap, int64_t process_id, int64_t t_ms) {
  ASSIGN_OR_RETURN(auto growth, image_growth(heap, process_id, std::numeric_limits<int64_t>::min(), t_ms));
  std::vector<int64_t> self(heap.stacks.nodes().size(), 0);
  for (const analyze::HeapStackGrowth& stack : growth.top) {
    self[static_cast<size_t>(heap.node_of_stack.at(stack.stack_id))] += stack.to_bytes;
  }
  json out = image_json(growth, process_id);
  out["t_ms"] = growth.to_ms;  // the snapshot's time
  out["snapshot_in_use_bytes"] = growth.to_in_use_bytes;
  const analyze::HeapImageHistory& history = *image_at(heap, process_id, t_ms);  // image_growth's image
  const auto high_water = analyze::high_water_between_snapshots(history, *history.snapshot_at(growth.to_ms));
  out["high_water_bytes"] = high_water ? json(*high_water) : json(nullptr);
  out["stacks"] = growth.top.size();
  out["tree"] = tree_json(heap.stacks, self, {});
  return out;
}

Result<json> heap_diff_json(const HeapView& heap, int64_t process_id, int64_t from_ms, int64_t to_ms) {
  ASSIGN_OR_RETURN(auto growth, image_growth(heap, process_id, from_ms, to_ms));
  const size_t nodes = heap.stacks.nodes().size();
  std::vector<int64_t> grew(nodes, 0);
  std::vector<int64_t> before(nodes, 0);
  std::vector<int64_t> after(nodes, 0);
  for (const analyze::HeapStackGrowth& stack : growth.top) {
    const auto node = static_cast<size_t>(heap.node_of_stack.at(stack.stack_id));
    grew[node] += stack.to_bytes - stack.from_bytes;
    before[node] += stack.from_bytes;
    after[node] += stack.to_bytes;
  }
  json out = image_json(growth, process_id);
  out["from_ms"] = growth.from_ms;  // the snapshots' times (the image's start when it began later)
  out["to_ms"] = growth.to_ms;
  out["from_in_use_bytes"] = growth.from_in_use_bytes;
  out["to_in_use_bytes"] = growth.to_in_use_bytes;
  out["stacks"] = growth.top.size();
  out["tree"] = tree_json(heap.stacks, grew, {{"b", std::move(before)}, {"a", std::move(after)}});
  return out;
}

json cpu_report_json(const CpuView& cpu, size_t max_entries) {
  json nodes = json::array();
  for (const analyze::StackTree::Node& node : cpu.stacks.nodes()) {
    nodes.push_back({node.name, node.parent});
  }
  auto offset_of = [&](const CpuSamplePoint& sample) { return std::max<int64_t>(sample.t_ms - cpu.start_ms, 0); };
  // The heat map: (second, row, process) -> samples.
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> cells;
  bool cells_by_process = true;
  for (bool by_process : {true, false}) {
    cells.clear();
    for (const CpuSamplePoint& sample : cpu.samples) {
      const int64_t offset_ms = offset_of(sample);
      ++cells[{offset_ms / 1000, offset_ms % 1000 / kHeatRowMs, by_process ? sample.process_id : 0}];
    }
    cells_by_process = by_process;
    if (cells.size() <= max_entries) {
      break;
    }
  }
  // The flame graphs' entries: (bucket, process, node) -> samples, at the finest bucket
  // that fits.
  constexpr int64_t kBucketsMs[] = {kHeatRowMs, 1000, 10'000, 60'000, 600'000, 3'600'000};
  std::map<std::tuple<int64_t, int64_t, int32_t>, int64_t> counts;
  int64_t bucket_ms = kHeatRowMs;
  bool entries_by_process = true;
  for (bool by_process : {true, false}) {
    for (int64_t bucket : kBucketsMs) {
      counts.clear();
      for (const CpuSamplePoint& sample : cpu.samples) {
        ++counts[{offset_of(sample) / bucket, by_process ? sample.process_id : 0, sample.node}];
      }
      bucket_ms = bucket;
      entries_by_process = by_process;
      if (counts.size() <= max_entries) {
        break;
      }
    }
    if (counts.size() <= max_entries) {
      break;
    }
  }
  json cell_list = json::array();
  for (const auto& [key, count] : cells) {
    const auto& [second, row, process_id] = key;
    cell_list.push_back({second, row, process_id, count});
  }
  json entries = json::array();
  for (const auto& [key, count] : counts) {
    const auto& [bucket, process_id, node] = key;
    entries.push_back({bucket, process_id, node, count});
  }
  const int64_t span_ms = std::max<int64_t>(cpu.end_ms - cpu.start_ms, 1);
  return {{"start_ms", cpu.start_ms}, {"row_ms", kHeatRowMs}, {"rows", kHeatRows},
          {"seconds", (span_ms + 999) / 1000}, {"cells", std::move(cell_list)}, {"cells_by_process", cells_by_process},
          {"nodes", std::move(nodes)}, {"bucket_ms", bucket_ms}, {"entries", std::move(entries)},
          {"entries_by_process", entries_by_process}};
}

json heap_report_json(const HeapView& heap) {
  json nodes = json::array();
  for (const analyze::StackTree::Node& node : heap.stacks.nodes()) {
    nodes.push_back({node.name, node.parent});
  }
  json images = json::array();
  for (const analyze::HeapImageHistory& history : heap.histories) {
    auto process = heap.process_of_image.find(history.image->id);
    if (process == heap.process_of_image.end() || history.snapshots.empty()) {
      continue;
    }
    json times = json::array();
    json in_use = json::array();
    json high_water = json::array();  // per snapshot, as GET /api/heap/flame gives it
    int64_t high_water_so_far = 0;
    int64_t highest_so_far = 0;
    for (const store::HeapSnapshotRow* snapshot : history.snapshots) {
      times.push_back(snapshot->t_ms);
      in_use.push_back(snapshot->in_use_bytes);
      high_water_so_far = std::max(high_water_so_far, snapshot->peak_in_use_bytes);
      highest_so_far = std::max(highest_so_far, snapshot->in_use_bytes);
      high_water.push_back(analyze::reached_between_snapshots(high_water_so_far, highest_so_far)
                               ? json(high_water_so_far) : json(nullptr));
    }
    json stacks = json::array();
    for (const auto& [stack_id, changes] : history.stacks) {
      json points = json::array();  // snapshot index, in-use bytes from then on
      for (const analyze::HeapStackChange& change : changes) {
        points.push_back(change.snapshot);
        points.push_back(change.totals.in_use_bytes());
      }
      stacks.push_back({heap.node_of_stack.at(stack_id), std::move(points)});
    }
    images.push_back({{"process", process->second}, {"pid", history.image->pid}, {"image", history.image->id},
                      {"started_ms", history.image->started_ms}, {"snapshots", std::move(times)},
                      {"in_use", std::move(in_use)}, {"high_water", std::move(high_water)},
                      {"stacks", std::move(stacks)}});
  }
  return {{"nodes", std::move(nodes)}, {"images", std::move(images)}};
}

}  // namespace canopy::web
