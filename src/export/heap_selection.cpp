#include "export/heap_selection.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "common/text.h"

namespace canopy::exporters {

Result<HeapSelection> select_heap(const store::Reader& reader, const HeapExportOptions& options) {
  HeapSelection selection;
  ASSIGN_OR_RETURN(selection.profile, reader.heap_profile());
  if (selection.profile.images.empty()) {
    return Error{"'" + reader.path() + "' has no heap profile: record with --heap"};
  }
  ASSIGN_OR_RETURN(auto processes, reader.processes());

  // Each image's command and executable, by image id, and what there is to ask for.
  std::map<int64_t, std::pair<std::string, std::string>> named;
  std::set<std::string> pids;
  std::set<std::string> commands;
  for (const store::HeapImageRow& image : selection.profile.images) {
    auto process = analyze::heap_image_process(image, processes);
    named[image.id] = {process ? process->name : "", process ? process->exe : ""};
    pids.insert(std::to_string(image.pid));
    if (process && !process->name.empty()) {
      commands.insert(process->name);
    }
  }
  // A process is asked for by its name (the kernel's, of its last program: at most 15
  // bytes, as ps shows it) or by its executable's file name, which the name may cut.
  auto wanted = [&](const store::HeapImageRow& image) {
    const auto& [command, exe] = named[image.id];
    return (options.pid == 0 || image.pid == options.pid) &&
           (options.command.empty() || command == options.command ||
            (!exe.empty() && path_base_name(exe) == options.command));
  };
  if (std::none_of(selection.profile.images.begin(), selection.profile.images.end(), wanted)) {
    if (options.pid != 0) {
      return Error{"no heap profile of PID " + std::to_string(options.pid) + " in '" + reader.path() +
                   "' (profiled: " + listed_names(pids) + ")"};
    }
    return Error{"no heap profile of a command named '" + options.command + "' in '" + reader.path() +
                 "' (profiled: " + listed_names(commands) + ")"};
  }

  using Key = std::tuple<int64_t, std::string, int64_t>;  // pid, command, stack
  std::map<Key, HeapSample> samples;
  for (analyze::HeapImageAt& at : analyze::heap_images_at(selection.profile, options.at)) {
    if (!wanted(at.image)) {
      continue;
    }
    const auto& [command, exe] = named[at.image.id];
    for (const analyze::HeapStackTotals& totals : at.stacks) {
      HeapSample& sample = samples[{at.image.pid, command, totals.stack_id}];
      sample.stack_id = totals.stack_id;
      sample.pid = at.image.pid;
      sample.command = command;
      sample.alloc_objects += totals.allocated_count;
      sample.alloc_space += totals.allocated_bytes;
      sample.inuse_objects += totals.in_use_count();
      sample.inuse_space += totals.in_use_bytes();
    }
    selection.images.push_back({std::move(at), command, exe});
  }
  std::stable_sort(selection.images.begin(), selection.images.end(),
                   [](const HeapSelectedImage& a, const HeapSelectedImage& b) {
                     return a.at.image.started_ms < b.at.image.started_ms;
                   });
  for (auto& [key, sample] : samples) {
    if (sample.alloc_objects != 0 || sample.alloc_space != 0 || sample.inuse_objects != 0 || sample.inuse_space != 0) {
      selection.samples.push_back(std::move(sample));
    }
  }
  return selection;
}

}  // namespace canopy::exporters
