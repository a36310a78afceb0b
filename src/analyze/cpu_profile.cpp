#include "analyze/cpu_profile.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "common/text.h"

namespace canopy::analyze {
namespace {

// The functions of a stack, innermost first, inlined ones expanded.
std::vector<std::string> innermost_first(const store::CpuProfile& profile, int64_t stack_id,
                                         const CpuFrameNames& names) {
  std::vector<std::string> functions;
  for (int64_t frame_id : profile.stacks[static_cast<size_t>(stack_id - 1)].frame_ids) {
    for (std::string& name : names(frame_id)) {
      functions.push_back(std::move(name));
    }
  }
  return functions;
}

// Whether the stack's innermost frame is in no module (store/heap_rows.h: JIT code no
// perf map named as it was recorded, or a stray address).
bool in_no_object(const store::CpuProfile& profile, int64_t stack_id) {
  const std::vector<int64_t>& frame_ids = profile.stacks[static_cast<size_t>(stack_id - 1)].frame_ids;
  return !frame_ids.empty() && !profile.frames[static_cast<size_t>(frame_ids.front() - 1)].module_id;
}

// The `top` functions by one count, ties broken by the other. A function none of the
// samples counts by `by` is left out: it would fill a short profile's self list with
// callers that never ran themselves.
std::vector<CpuFunction> top_of(std::vector<CpuFunction> functions, size_t top, int64_t CpuFunction::*by,
                                int64_t CpuFunction::*then_by) {
  std::erase_if(functions, [&](const CpuFunction& f) { return f.*by == 0; });
  std::stable_sort(functions.begin(), functions.end(), [&](const CpuFunction& a, const CpuFunction& b) {
    if (a.*by != b.*by) {
      return a.*by > b.*by;
    }
    return a.*then_by != b.*then_by ? a.*then_by > b.*then_by : a.name < b.name;
  });
  if (functions.size() > top) {
    functions.resize(top);
  }
  return functions;
}

}  // namespace

bool names_unnamed_code_of_object(const std::string& name) {
  if (!name.starts_with("? (") || !name.ends_with(")")) {
    return false;
  }
  const std::string_view inside = std::string_view(name).substr(3, name.size() - 4);
  return !inside.empty() && !inside.starts_with("0x") && inside.find("+0x") == std::string_view::npos &&
         inside.find(':') == std::string_view::npos && inside.find('(') == std::string_view::npos;
}

CpuSampleProcesses::CpuSampleProcesses(const std::vector<store::ProcessRow>& processes) : processes_(processes) {
  for (const store::ProcessRow& process : processes) {
    by_pid_[process.pid].push_back(&process);
  }
}

const store::ProcessRow* CpuSampleProcesses::of(const store::CpuSampleRow& row) const {
  if (row.process_id && *row.process_id >= 1 && *row.process_id <= static_cast<int64_t>(processes_.size())) {
    return &processes_[static_cast<size_t>(*row.process_id - 1)];
  }
  auto instances = by_pid_.find(row.pid);
  if (instances == by_pid_.end()) {
    return nullptr;
  }
  const store::ProcessRow* latest = nullptr;  // the last instance of the PID started by then
  for (const store::ProcessRow* process : instances->second) {
    if (process->start_ms <= row.t_ms && (!latest || process->start_ms >= latest->start_ms)) {
      latest = process;
    }
  }
  return latest && (!latest->end_ms || row.t_ms <= *latest->end_ms + 1) ? latest : nullptr;
}

Result<CpuSelection> select_cpu_samples(const store::Reader& reader, const CpuSampleFilter& filter) {
  CpuSelection selection;
  ASSIGN_OR_RETURN(selection.profile, reader.cpu_profile());
  const std::string& path = reader.path();
  if (!selection.profile.recorded) {
    std::optional<std::string> said = reader.meta().cpu_profile;
    if (said && said->rfind("off: ", 0) == 0) {
      return Error{"'" + path + "' has no CPU profile: the kernel refused it while recording (" + said->substr(5) +
                   ")"};
    }
    return Error{"'" + path + "' has no CPU profile: record with --cpu-profile"};
  }
  selection.samples_in_recording = static_cast<int64_t>(selection.profile.samples.size());
  ASSIGN_OR_RETURN(auto processes, reader.processes());
  const int64_t start_ms = reader.meta().start_ms.value_or(0);
  std::set<std::string> pids;
  std::set<std::string> commands;
  const CpuSampleProcesses process_of(processes);
  for (const store::CpuSampleRow& row : selection.profile.samples) {
    const store::ProcessRow* process = process_of.of(row);
    pids.insert(std::to_string(row.pid));
    if (process && !process->name.empty()) {
      commands.insert(process->name);
    }
    if (filter.pid != 0 && row.pid != filter.pid) {
      continue;
    }
    if (!filter.command.empty() &&
        !(process && (process->name == filter.command ||
                      (!process->exe.empty() && path_base_name(process->exe) == filter.command)))) {
      continue;
    }
    int64_t offset_ms = row.t_ms - start_ms;
    if ((filter.from_ms && offset_ms < *filter.from_ms) || (filter.to_ms && offset_ms >= *filter.to_ms)) {
      continue;
    }
    selection.samples.push_back(row);
    if (auto [selected, added] = selection.processes.try_emplace(row.pid); added) {
      selected->second.pid = row.pid;
      if (process) {
        selected->second.command = process->name;
        selected->second.exe = process->exe;
        selected->second.cmdline = process->cmdline;
      }
    }
  }
  if (selection.samples.empty()) {
    if (selection.profile.samples.empty()) {
      return Error{"'" + path + "' has a CPU profile without samples: its processes used no CPU the kernel sampled"};
    }
    if (filter.pid != 0 && pids.count(std::to_string(filter.pid)) == 0) {
      return Error{"no CPU samples of PID " + std::to_string(filter.pid) + " in '" + path + "' (sampled: " +
                   listed_names(pids) + ")"};
    }
    if (!filter.command.empty() && commands.count(filter.command) == 0) {
      return Error{"no CPU samples of a command named '" + filter.command + "' in '" + path + "' (sampled: " +
                   listed_names(commands) + ")"};
    }
    return Error{"no CPU samples between " + format_duration_ms(filter.from_ms.value_or(0)) + " and " +
                 (filter.to_ms ? format_duration_ms(*filter.to_ms) : std::string("the end")) + " in '" + path + "'"};
  }
  return selection;
}

std::vector<std::string> cpu_stack_functions(const store::CpuProfile& profile, int64_t stack_id,
                                             const CpuFrameNames& names) {
  std::vector<std::string> functions = innermost_first(profile, stack_id, names);
  std::reverse(functions.begin(), functions.end());
  return functions;
}

CpuProfileSummary summarize_cpu(const store::Reader& reader, const CpuSelection& selection,
                                const CpuSampleFilter& filter, const CpuFrameNames& names, bool per_process,
                                size_t top) {
  CpuProfileSummary summary;
  const store::RecordingMeta& meta = reader.meta();
  summary.sampling = meta.cpu_profile.value_or("");
  summary.samples_lost = meta.cpu_samples_lost.value_or(0);
  summary.samples = static_cast<int64_t>(selection.samples.size());
  const int64_t start_ms = meta.start_ms.value_or(0);
  summary.from_ms = filter.from_ms.value_or(0);
  summary.to_ms = filter.to_ms.value_or(meta.end_ms ? *meta.end_ms - start_ms : selection.samples.back().t_ms - start_ms);

  summary.command = filter.command;

  // Samples per stack, per group (pid, or 0 for all merged). A PID's samples alone are
  // that process's list, whether or not lists are per process.
  std::map<int64_t, std::unordered_map<int64_t, int64_t>> stacks_by_group;
  for (const store::CpuSampleRow& row : selection.samples) {
    ++stacks_by_group[per_process || filter.pid != 0 ? row.pid : 0][row.stack_id];
    summary.samples_outside_objects += in_no_object(selection.profile, row.stack_id) ? 1 : 0;
  }
  std::unordered_map<int64_t, std::vector<std::string>> functions_of;  // by stack id, innermost first
  for (const auto& [pid, stacks] : stacks_by_group) {
    CpuGroup group;
    group.pid = pid;
    if (pid != 0) {
      const CpuSelectedProcess& process = selection.processes.at(pid);
      group.command = process.command;
      group.cmdline = process.cmdline;
    }
    std::map<std::string, CpuFunction> functions;
    for (const auto& [stack_id, count] : stacks) {
      auto known = functions_of.find(stack_id);
      if (known == functions_of.end()) {
        known = functions_of.emplace(stack_id, innermost_first(selection.profile, stack_id, names)).first;
      }
      const std::vector<std::string>& stack = known->second;
      group.samples += count;
      if (stack.empty()) {
        // No user-space frame: a sample the kernel could not walk (see docs/cpu-profile.md).
        CpuFunction& unknown = functions["[no user stack]"];
        unknown.self_samples += count;
        unknown.total_samples += count;
        continue;
      }
      functions[stack.front()].self_samples += count;
      std::unordered_set<std::string> counted;  // recursion: once per sample
      for (const std::string& name : stack) {
        if (counted.insert(name).second) {
          functions[name].total_samples += count;
        }
      }
    }
    std::vector<CpuFunction> all;
    for (auto& [name, function] : functions) {
      function.name = name;
      function.unnamed_code = names_unnamed_code_of_object(name);
      all.push_back(function);
    }
    group.by_self = top_of(all, top, &CpuFunction::self_samples, &CpuFunction::total_samples);
    // A stripped program's unnamed code is on nearly every stack: ranked by total, it
    // would head the list that is to say which callers the time went through.
    std::erase_if(all, [](const CpuFunction& f) { return f.unnamed_code; });
    group.by_total = top_of(std::move(all), top, &CpuFunction::total_samples, &CpuFunction::self_samples);
    summary.groups.push_back(std::move(group));
  }
  std::stable_sort(summary.groups.begin(), summary.groups.end(),
                   [](const CpuGroup& a, const CpuGroup& b) { return a.samples > b.samples; });
  return summary;
}

}  // namespace canopy::analyze
