#include "report/heap_format.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/text.h"

namespace canopy::report {
namespace {

std::string image_title(const analyze::HeapImageSummary& summary) {
  std::string name = summary.process ? summary.process->name : "?";
  return name + " (pid " + std::to_string(summary.image.pid) + ")";
}

std::string ending_text(const analyze::HeapImageSummary& summary) {
  const std::string end = summary.image.end.value_or("");
  if (end == "exit") {
    return "to its exit";
  }
  if (end == "lost") {
    return "until its last snapshot (exec, a signal or _exit ended it without one)";
  }
  return "until the recording ended";
}

std::string rate_text(int64_t rate_bytes) {
  return rate_bytes > 0 ? "one sample per " + format_bytes(rate_bytes) + " allocated" : "sampling off";
}

void append_moment(std::string& out, const char* what, const analyze::HeapMoment& moment, int64_t start_ms,
                   const StackFrames& frames) {
  char line[256];
  std::snprintf(line, sizeof line, "  %s: %s in use at +%s\n", what, format_bytes(moment.in_use_bytes).c_str(),
                format_duration_ms(moment.t_ms - start_ms).c_str());
  out += line;
  for (const analyze::HeapStackHeld& held : moment.top) {
    std::snprintf(line, sizeof line, "    %10s  %9lld allocations  p(seen) %.2f\n", format_bytes(held.in_use_bytes).c_str(),
                  static_cast<long long>(held.in_use_count), held.seen_probability);
    out += line;
    for (const FrameText& frame : frames(held.stack_id)) {
      out += "        " + std::string(frame.inlined ? "(inlined) " : "") + frame.function + "  " + frame.location + "\n";
    }
  }
  if (moment.other_stacks > 0) {
    out += "    " + format_bytes(moment.other_bytes) + " more in " + std::to_string(moment.other_stacks) +
           " other stack" + (moment.other_stacks == 1 ? "" : "s") + "\n";
  }
}

nlohmann::json moment_json(const analyze::HeapMoment& moment, const StackFrames& frames) {
  nlohmann::json stacks = nlohmann::json::array();
  for (const analyze::HeapStackHeld& held : moment.top) {
    nlohmann::json named = nlohmann::json::array();
    for (const FrameText& frame : frames(held.stack_id)) {
      named.push_back({{"function", frame.function}, {"location", frame.location}, {"inlined", frame.inlined}});
    }
    stacks.push_back({{"stack_id", held.stack_id},
                      {"in_use_bytes", held.in_use_bytes},
                      {"in_use_count", held.in_use_count},
                      {"allocated_bytes", held.allocated_bytes},
                      {"allocated_count", held.allocated_count},
                      {"seen_probability", held.seen_probability},
                      {"frames", named}});
  }
  return {{"t_ms", moment.t_ms},
          {"in_use_bytes", moment.in_use_bytes},
          {"stacks", stacks},
          {"other_stacks", moment.other_stacks},
          {"other_bytes", moment.other_bytes}};
}

}  // namespace

std::string heap_text(const std::vector<analyze::HeapImageSummary>& images, int64_t recording_start_ms,
                      const StackFrames& frames) {
  if (images.empty()) {
    return "no heap profile: record with --heap (canopy record --heap -- COMMAND)\n";
  }
  std::string out;
  for (const analyze::HeapImageSummary& summary : images) {
    if (!summary.end) {
      // It sampled (its profiler connects on the first sample), then ended before a
      // snapshot: an exec, a signal or _exit within the first interval.
      out += image_title(summary) + ": " + rate_text(summary.image.rate_bytes) +
             ", ended before its first snapshot (exec, a signal or _exit)\n\n";
      continue;
    }
    out += image_title(summary) + ": " + rate_text(summary.image.rate_bytes) + ", " +
           std::to_string(summary.image.samples) + " samples, " + ending_text(summary) + "\n";
    if (summary.image.samples_dropped > 0) {
      out += "  " + std::to_string(summary.image.samples_dropped) +
             " samples dropped: the profiler's tables were full; estimates are low\n";
    }
    if (summary.peak && summary.peak->t_ms != summary.end->t_ms) {
      append_moment(out, "at its peak", *summary.peak, recording_start_ms, frames);
    }
    append_moment(out, "at its end", *summary.end, recording_start_ms, frames);
    out += "\n";
  }
  return out;
}

std::string heap_json(const std::vector<analyze::HeapImageSummary>& images, int64_t recording_start_ms,
                      const StackFrames& frames) {
  nlohmann::json list = nlohmann::json::array();
  for (const analyze::HeapImageSummary& summary : images) {
    nlohmann::json image = {{"pid", summary.image.pid},
                            {"name", summary.process ? nlohmann::json(summary.process->name) : nlohmann::json()},
                            {"started_ms", summary.image.started_ms},
                            {"ended_ms", summary.image.ended_ms ? nlohmann::json(*summary.image.ended_ms) : nlohmann::json()},
                            {"end", summary.image.end ? nlohmann::json(*summary.image.end) : nlohmann::json()},
                            {"rate_bytes", summary.image.rate_bytes},
                            {"unwind", summary.image.unwind},
                            {"samples", summary.image.samples},
                            {"samples_dropped", summary.image.samples_dropped},
                            {"snapshots", summary.snapshots}};
    image["at_peak"] = summary.peak ? moment_json(*summary.peak, frames) : nlohmann::json();
    image["at_end"] = summary.end ? moment_json(*summary.end, frames) : nlohmann::json();
    list.push_back(std::move(image));
  }
  return nlohmann::json({{"recording_start_ms", recording_start_ms}, {"images", list}}).dump(2) + "\n";
}

}  // namespace canopy::report
