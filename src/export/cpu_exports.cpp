#include "export/cpu_exports.h"

#include <map>
#include <tuple>

#include "common/gzip.h"
#include "common/text.h"
#include "export/heap_collapsed.h"
#include "export/pprof_profile.h"
#include "symbolize/cpu_frame_names.h"

namespace canopy::exporters {
namespace {

// The sampling frequency from the recording's meta ("999 Hz, ..."); 0 when unknown.
int64_t frequency_hz(const store::Reader& reader) {
  const std::string said = reader.meta().cpu_profile.value_or("");
  return parse_int<int64_t>(said.substr(0, said.find(' '))).value_or(0);
}

}  // namespace

Result<std::string> cpu_pprof_profile(const store::Reader& reader, const analyze::CpuSampleFilter& filter) {
  ASSIGN_OR_RETURN(analyze::CpuSelection selection, analyze::select_cpu_samples(reader, filter));
  const int64_t hz = frequency_hz(reader);
  const int64_t period_ns = hz > 0 ? 1'000'000'000 / hz : 0;
  PprofProfile input;
  input.sample_types = {{"samples", "count"}, {"cpu", "nanoseconds"}};
  std::map<std::tuple<int64_t, int64_t>, int64_t> counts;  // (pid, stack) -> samples
  for (const store::CpuSampleRow& row : selection.samples) {
    ++counts[{row.pid, row.stack_id}];
  }
  std::map<std::string, int64_t> samples_by_program;
  for (const auto& [key, count] : counts) {
    const auto& [pid, stack_id] = key;
    samples_by_program[selection.processes.at(pid).exe] += count;
    PprofSample sample{stack_id, {count, count * period_ns}, {{"pid", std::to_string(pid)}}};
    const std::string& command = selection.processes.at(pid).command;
    if (!command.empty()) {
      sample.labels.emplace_back("command", command);
    }
    input.samples.push_back(std::move(sample));
  }
  input.programs = heaviest_first(samples_by_program);
  const store::RecordingMeta& meta = reader.meta();
  const int64_t start_ms = meta.start_ms.value_or(0);
  const int64_t from_ms = start_ms + filter.from_ms.value_or(0);
  const int64_t to_ms = filter.to_ms ? start_ms + *filter.to_ms : meta.end_ms.value_or(selection.samples.back().t_ms);
  input.time_nanos = from_ms * 1'000'000;
  input.duration_nanos = (to_ms - from_ms) * 1'000'000;
  input.period_type = {"cpu", "nanoseconds"};
  input.period = period_ns;
  const std::string& path = reader.path();
  input.comments = {"canopy's CPU profile of " + path.substr(path.rfind('/') + 1) + " (" +
                        meta.cpu_profile.value_or("") + ")",
                    "samples: taken by the kernel once per 1/" + std::to_string(hz) +
                        " s of a thread's CPU time; cpu: samples times that period, an estimate",
                    "addresses: each mapping at a synthetic range of its own, file_offset 0; a location's address "
                    "is memory_start + the return address in the object's own address space - 1 (the innermost "
                    "frame is recorded one byte on, so that this is the sampled instruction)"};
  input.default_sample_type = "cpu";
  return encode_pprof(store::stack_tables_of(selection.profile), input);
}

Status write_cpu_pprof(const store::Reader& reader, const analyze::CpuSampleFilter& filter,
                       const std::function<void(std::string_view)>& out) {
  ASSIGN_OR_RETURN(std::string profile, cpu_pprof_profile(reader, filter));
  ASSIGN_OR_RETURN(std::string compressed, gzip(profile));
  out(compressed);
  return Ok{};
}

Status write_cpu_collapsed(const store::Reader& reader, const analyze::CpuSampleFilter& filter,
                           const std::function<void(std::string_view)>& out) {
  ASSIGN_OR_RETURN(analyze::CpuSelection selection, analyze::select_cpu_samples(reader, filter));
  symbolize::CpuFrameNames names(selection.profile);
  std::map<int64_t, int64_t> by_stack;
  for (const store::CpuSampleRow& row : selection.samples) {
    ++by_stack[row.stack_id];
  }
  // By line: stacks that differ only in addresses within the same functions fold into one.
  std::map<std::string, int64_t> lines;
  for (const auto& [stack_id, count] : by_stack) {
    std::string line;
    for (const std::string& function : analyze::cpu_stack_functions(
             selection.profile, stack_id, [&](int64_t frame_id) { return names.names_of(frame_id); })) {
      line += (line.empty() ? "" : ";") + folded_frame(function);
    }
    lines[line.empty() ? std::string("[no user stack]") : line] += count;
  }
  write_folded_lines(lines, out);
  return Ok{};
}

}  // namespace canopy::exporters
