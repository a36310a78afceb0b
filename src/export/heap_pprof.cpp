#include "export/heap_pprof.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "analyze/heap_summary.h"
#include "common/gzip.h"
#include "common/text.h"
#include "common/units.h"
#include "export/pprof_profile.h"

namespace canopy::exporters {
namespace {

// What the profile's figures are, for `pprof -comments` and whoever reads it later.
std::vector<std::string> comments(const store::Reader& reader, const HeapSelection& selection,
                                  const HeapExportOptions& options) {
  std::vector<std::string> lines;
  const std::string& path = reader.path();
  lines.push_back("canopy's heap profile of " + path.substr(path.rfind('/') + 1));
  std::set<int64_t> rates;
  for (const HeapSelectedImage& image : selection.images) {
    if (image.at.image.rate_bytes > 0) {
      rates.insert(image.at.image.rate_bytes);
    }
  }
  for (int64_t rate : rates) {
    lines.push_back("estimates from sampling one allocation per " + std::to_string(rate) +
                    " bytes allocated on average (record --heap=" + size_text(rate) +
                    "): a sampled allocation of s bytes stands for s/p bytes and 1/p allocations, p = 1 - exp(-s/" +
                    std::to_string(rate) + ")");
  }
  bool at_peak = options.at == analyze::HeapAt::kPeak;
  lines.push_back(std::string("inuse_*: held at each process image's ") +
                  (at_peak ? "peak (its snapshot of the highest estimated heap)" : "end (its last snapshot)") +
                  "; alloc_*: allocated from the image's start to that snapshot; merged over the images below");
  // A build's hundreds of shells and tools allocate too little to be sampled: a line
  // each would bury the few that hold the profile.
  int64_t start_ms = reader.meta().start_ms.value_or(0);
  bool recording_ended = reader.meta().end_ms.has_value();
  int64_t unsampled = 0;
  for (const HeapSelectedImage& image : selection.images) {
    const store::HeapImageRow& row = image.at.image;
    const store::HeapSnapshotRow& snapshot = image.at.snapshot;
    if (snapshot.samples == 0 && row.samples_dropped == 0) {
      ++unsampled;
      continue;
    }
    lines.push_back("pid " + std::to_string(row.pid) + " " + (image.command.empty() ? "?" : image.command) +
                    ": snapshot at +" + format_duration_ms(snapshot.t_ms - start_ms) + " (" +
                    std::to_string(snapshot.samples) + " samples by then): " + format_bytes(snapshot.in_use_bytes) +
                    " in use, high-water mark so far " + format_bytes(snapshot.peak_in_use_bytes) + "; " +
                    std::to_string(row.samples_dropped) + " dropped in all; profiled " +
                    analyze::heap_image_ending_text(row, recording_ended));
  }
  if (unsampled > 0) {
    lines.push_back(std::to_string(unsampled) +
                    (unsampled == 1 ? " other image had no sampled allocation by its snapshot"
                                    : " other images had no sampled allocation by their snapshots"));
  }
  lines.push_back(
      "addresses: each mapping at a synthetic range of its own, file_offset 0; a location's address is "
      "memory_start + the return address in the object's own address space - 1");
  return lines;
}

// The samples, their figures and what they are, as Go's heap profiles have them (the
// order and names pprof's users know).
PprofProfile heap_pprof_input(const store::Reader& reader, const HeapSelection& selection,
                              const HeapExportOptions& options) {
  PprofProfile input;
  input.sample_types = {{"alloc_objects", "count"}, {"alloc_space", "bytes"}, {"inuse_objects", "count"},
                        {"inuse_space", "bytes"}};
  for (const HeapSample& sample : selection.samples) {
    PprofSample out{sample.stack_id,
                    {sample.alloc_objects, sample.alloc_space, sample.inuse_objects, sample.inuse_space},
                    {{"pid", std::to_string(sample.pid)}}};
    if (!sample.command.empty()) {
      out.labels.emplace_back("command", sample.command);
    }
    input.samples.push_back(std::move(out));
  }
  std::map<std::string, int64_t> in_use_by_program;
  for (const HeapSelectedImage& image : selection.images) {
    in_use_by_program[image.exe] += image.at.snapshot.in_use_bytes;
  }
  input.programs = heaviest_first(in_use_by_program);
  const store::RecordingMeta& meta = reader.meta();
  int64_t start_ms = meta.start_ms.value_or(0);
  int64_t end_ms = meta.end_ms.value_or(start_ms);
  int64_t rate_bytes = 0;
  for (const HeapSelectedImage& image : selection.images) {
    end_ms = std::max(end_ms, image.at.snapshot.t_ms);  // a recording whose recorder was killed has no end
    rate_bytes = rate_bytes != 0 ? rate_bytes : image.at.image.rate_bytes;
  }
  input.time_nanos = start_ms * 1'000'000;
  input.duration_nanos = (end_ms - start_ms) * 1'000'000;
  input.period_type = {"space", "bytes"};
  input.period = rate_bytes;
  input.comments = comments(reader, selection, options);
  input.default_sample_type = "inuse_space";
  return input;
}

}  // namespace

Result<std::string> heap_pprof_profile(const store::Reader& reader, const HeapExportOptions& options) {
  ASSIGN_OR_RETURN(HeapSelection selection, select_heap(reader, options));
  return encode_pprof(selection.profile, heap_pprof_input(reader, selection, options));
}

Status write_heap_pprof(const store::Reader& reader, const HeapExportOptions& options,
                        const std::function<void(std::string_view)>& out) {
  ASSIGN_OR_RETURN(std::string profile, heap_pprof_profile(reader, options));
  ASSIGN_OR_RETURN(std::string compressed, gzip(profile));
  out(compressed);
  return Ok{};
}

}  // namespace canopy::exporters
