#include "report/heap_format.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "common/json_dump.h"
#include "common/process_words.h"
#include "common/short_command.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "report/heap_coverage_format.h"
#include "report/summary_format.h"

namespace canopy::report {
namespace {

HeapImageTitles summary_titles(const std::vector<analyze::HeapImageSummary>& images) {
  HeapImageTitles titles;
  for (const analyze::HeapImageSummary& summary : images) {
    titles.add(summary.image, summary.process);
  }
  titles.tell_apart();
  return titles;
}

// What RSS held beside the heap: the allocator's free memory, stacks, code, mappings.
std::string rss_text(const analyze::HeapMoment& moment) {
  if (!moment.rss) {
    return "";
  }
  int64_t beyond = moment.rss->anon_bytes - moment.in_use_bytes;
  std::string text = "; RSS " + format_bytes(moment.rss->rss_bytes) + ", " + format_bytes(moment.rss->anon_bytes) +
                     " of it anonymous";
  if (beyond > 0) {
    text += " (" + format_bytes(beyond) + " beyond the heap in use: freed memory the allocator keeps, stacks, other mappings)";
  }
  return text;
}

std::string rate_text(int64_t rate_bytes) {
  return rate_bytes > 0 ? "one sample per " + format_bytes(rate_bytes) + " allocated" : "sampling off";
}

void append_moment(std::string& out, const char* what, const analyze::HeapMoment& moment, int64_t start_ms,
                   const StackFrames& frames) {
  char line[256];
  out += "  " + std::string(what) + ": " + format_bytes(moment.in_use_bytes) + " heap in use at " +
         heap_offset_text(moment.t_ms, start_ms) + rss_text(moment) + "\n";
  for (const analyze::HeapStackHeld& held : moment.top) {
    std::snprintf(line, sizeof line, "    %10s  %9lld allocations  p(seen) %.2f  ", format_bytes(held.in_use_bytes).c_str(),
                  static_cast<long long>(held.in_use_count), held.seen_probability);
    out += line + heap_verdict_text(held.verdict, start_ms) + "\n";
    out += heap_frames_text(held.stack_id, frames);
  }
  out += heap_more_stacks_text(moment.other_stacks, moment.other_bytes, "more");
}

nlohmann::json moment_json(const analyze::HeapMoment& moment, const StackFrames& frames) {
  nlohmann::json stacks = nlohmann::json::array();
  for (const analyze::HeapStackHeld& held : moment.top) {
    stacks.push_back({{"stack_id", held.stack_id},
                      {"in_use_bytes", held.in_use_bytes},
                      {"in_use_count", held.in_use_count},
                      {"allocated_bytes", held.allocated_bytes},
                      {"allocated_count", held.allocated_count},
                      {"seen_probability", held.seen_probability},
                      {"verdict", heap_verdict_json(held.verdict)},
                      {"frames", heap_frames_json(held.stack_id, frames)}});
  }
  nlohmann::json rss;
  if (moment.rss) {
    rss = {{"t_ms", moment.rss->t_ms}, {"rss_bytes", moment.rss->rss_bytes}, {"anon_bytes", moment.rss->anon_bytes}};
  }
  return {{"t_ms", moment.t_ms},
          {"in_use_bytes", moment.in_use_bytes},
          {"rss", rss},
          {"stacks", stacks},
          {"other_stacks", moment.other_stacks},
          {"other_bytes", moment.other_bytes}};
}

// The most the image's heap held at a snapshot, estimated.
int64_t highest_snapshot_bytes(const analyze::HeapImageSummary& summary) {
  int64_t peak = summary.peak ? summary.peak->in_use_bytes : 0;
  return std::max(peak, summary.end ? summary.end->in_use_bytes : 0);
}

// The most it held at all, estimated: what orders the images.
int64_t most_held_bytes(const analyze::HeapImageSummary& summary) {
  return std::max(summary.high_water_bytes, highest_snapshot_bytes(summary));
}

bool reached_between_snapshots(const analyze::HeapImageSummary& summary) {
  return analyze::reached_between_snapshots(summary.high_water_bytes, highest_snapshot_bytes(summary));
}

// The images that sampled nothing, in two lines: in a build of thousands of processes
// they are most of the images, and each alone would say only "0 B".
std::string unsampled_text(const std::vector<const analyze::HeapImageSummary*>& images, const HeapImageTitles& titles) {
  if (images.empty()) {
    return "";
  }
  std::optional<int64_t> rate;  // the images' sampling rate, when all that sampled had one
  bool same_rate = true;
  for (const analyze::HeapImageSummary* summary : images) {
    if (summary->image.rate_bytes > 0) {
      same_rate = same_rate && (!rate || *rate == summary->image.rate_bytes);
      rate = summary->image.rate_bytes;
    }
  }
  const bool one = images.size() == 1;
  const std::string less_than =
      rate && same_rate ? format_bytes(*rate) : std::string(one ? "its" : "their") + " sampling rate";
  std::string out = "no samples: " + std::to_string(images.size()) +
                    (one ? " process image, which" : " process images, each of which") + " allocated less than about " +
                    less_than + " (or had sampling off)\n  ";
  constexpr size_t kNamedOneByOne = 3;
  constexpr size_t kCommandsNamed = 8;
  if (images.size() <= kNamedOneByOne) {
    for (size_t i = 0; i < images.size(); ++i) {
      out += (i > 0 ? ", " : "") + titles(images[i]->image);
    }
    return out + "\n\n";
  }
  std::map<std::string, int64_t> by_command;
  for (const analyze::HeapImageSummary* summary : images) {
    ++by_command[summary->process ? summary->process->name : "?"];
  }
  std::vector<std::pair<std::string, int64_t>> commands(by_command.begin(), by_command.end());
  std::stable_sort(commands.begin(), commands.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (size_t i = 0; i < commands.size() && i < kCommandsNamed; ++i) {
    out += (i > 0 ? ", " : "") + terminal_safe(commands[i].first) + " " + std::to_string(commands[i].second);
  }
  if (commands.size() > kCommandsNamed) {
    out += ", and " + std::to_string(commands.size() - kCommandsNamed) + " more commands";
  }
  return out + "\n\n";
}

}  // namespace

std::string heap_offset_text(int64_t t_ms, int64_t recording_start_ms) {
  return "+" + format_duration_ms(t_ms - recording_start_ms);
}

void HeapImageTitles::add(const store::HeapImageRow& image, const std::optional<store::ProcessRow>& process) {
  static const std::vector<std::string> kNoCommandLine;
  by_image_[&image] = names_.size();
  names_.push_back(process ? process->name : "?");
  words_.push_back(process ? process_words(process->cmdline, process->name) : "");
  cmdlines_.push_back(process ? &process->cmdline : &kNoCommandLine);
  pids_.push_back(image.pid);
}

void HeapImageTitles::tell_apart() {
  canopy::tell_apart(words_, cmdlines_, std::vector<std::string_view>(names_.begin(), names_.end()));
}

std::string HeapImageTitles::operator()(const store::HeapImageRow& image) const {
  auto it = by_image_.find(&image);
  if (it == by_image_.end()) {
    return "? (pid " + std::to_string(image.pid) + ")";
  }
  const size_t i = it->second;
  const std::string title = words_[i].empty() ? names_[i] : names_[i] + " " + words_[i];
  return terminal_safe(title) + " (pid " + std::to_string(pids_[i]) + ")";
}

std::string heap_more_stacks_text(int64_t stacks, int64_t bytes, const char* what) {
  if (stacks == 0) {
    return "";
  }
  return "    " + format_bytes(bytes) + " " + what + " in " + count_of(stacks, "other stack", "other stacks") + "\n";
}

std::string heap_more_images_text(size_t more, const char* which, int64_t most_bytes, size_t all) {
  if (more == 0) {
    return "";
  }
  return count_of(static_cast<int64_t>(more), "more process image", "more process images") + " " + which + " " +
         format_bytes(most_bytes) + ": --processes " + std::to_string(all) + " lists every one, --pid or --command " +
         "one\n\n";
}

std::string heap_frames_text(int64_t stack_id, const StackFrames& frames) {
  std::string out;
  std::vector<FrameText> named = frames(stack_id);
  for (size_t i = 0; i < named.size();) {
    const FrameText& frame = named[i];
    // Frames that nothing names, one after another in one object (a stripped program's
    // own), tell no more on many lines than on one.
    size_t run = 1;
    while (frame.function == "?" && i + run < named.size() && named[i + run].function == "?" &&
           named[i + run].location == frame.location) {
      ++run;
    }
    // Their addresses tell two such stacks apart, and name the code to a build that has
    // symbols.
    std::string addresses;
    for (size_t in_run = 0; in_run < run; ++in_run) {
      const std::string& address = named[i + in_run].address;
      addresses += address.empty() ? "" : (addresses.empty() ? "+" : " +") + address;
    }
    out += "        " + std::string(frame.inlined ? "(inlined) " : "") + terminal_safe(frame.function) + "  " +
           terminal_safe(frame.location) + terminal_safe(addresses) +
           (run > 1 ? "  (" + std::to_string(run) + " frames)" : "") + "\n";
    i += run;
  }
  return out;
}

nlohmann::json heap_frames_json(int64_t stack_id, const StackFrames& frames) {
  nlohmann::json named = nlohmann::json::array();
  for (const FrameText& frame : frames(stack_id)) {
    named.push_back({{"function", frame.function}, {"location", frame.location}, {"inlined", frame.inlined}});
    if (!frame.address.empty()) {
      named.back()["address"] = frame.address;
    }
  }
  return named;
}

namespace {

std::string verdict_reason_text(const analyze::HeapVerdict& v, int64_t start_ms) {
  using Reason = analyze::HeapVerdict::Reason;
  std::string kind = analyze::verdict_kind_name(v.kind);
  std::string kept = std::to_string(v.half_kept) + " of the " + std::to_string(v.half_sampled) +
                     " sampled allocations it had at " + heap_offset_text(v.half_t_ms, start_ms);
  switch (v.reason) {
    case Reason::kGrewAndKept:
      return kind + ": grew at " + std::to_string(v.rises) + " snapshots, the last at " +
             heap_offset_text(v.last_rise_t_ms, start_ms) + "; kept " + kept;
    case Reason::kGaveBack:
      return kind + ": gave back " + format_bytes(v.peak_bytes - v.held_bytes) + " of its " +
             format_bytes(v.peak_bytes) + " high-water mark";
    case Reason::kRecycled:
      return kind + ": recycles its memory; kept only " + kept;
    case Reason::kGrewOnce:
      return kind + ": grew once, at " + heap_offset_text(v.last_rise_t_ms, start_ms) + ", then held flat";
    case Reason::kTooFewSamples:
      return kind + ": too few sampled allocations to judge (" + std::to_string(v.half_sampled) + ", needs " +
             std::to_string(analyze::kVerdictMinSampled) + ")";
    case Reason::kTooFewSnapshots:
      return kind + ": too few snapshots since it began to judge";
    case Reason::kGrewAtFew:
      return kind + ": grew at " + std::to_string(v.rises) + " snapshots; kept " + kept;
  }
  return kind;
}

}  // namespace

std::string heap_verdict_text(const analyze::HeapVerdict& v, int64_t start_ms) {
  return verdict_reason_text(v, start_ms) + (v.freed_at_exit ? "; freed as the process exited" : "");
}

nlohmann::json heap_verdict_json(const analyze::HeapVerdict& v) {
  return {{"kind", analyze::verdict_kind_name(v.kind)},
          {"reason", analyze::verdict_reason_name(v.reason)},
          {"rises", v.rises},
          {"held_bytes", v.held_bytes},
          {"peak_bytes", v.peak_bytes},
          {"half_t_ms", v.half_t_ms},
          {"half_sampled", v.half_sampled},
          {"half_kept", v.half_kept},
          {"held_sampled", v.held_sampled},
          {"last_rise_t_ms", v.last_rise_t_ms},
          {"freed_at_exit", v.freed_at_exit},
          {"oldest_born_ms", v.oldest_born_ms ? nlohmann::json(v.oldest_born_ms) : nlohmann::json()}};
}

std::string heap_text(const std::vector<analyze::HeapImageSummary>& images, int64_t recording_start_ms,
                      const StackFrames& frames, const analyze::HeapCoverageSummary& coverage, size_t processes) {
  // The largest first: in a tree, the process that held the most is what a reader
  // looks for. Stable, so equal images keep the order they started in.
  std::vector<const analyze::HeapImageSummary*> sampled;
  std::vector<const analyze::HeapImageSummary*> unsampled;
  for (const analyze::HeapImageSummary& summary : images) {
    (summary.image.samples > 0 ? sampled : unsampled).push_back(&summary);
  }
  std::stable_sort(sampled.begin(), sampled.end(), [](const auto* a, const auto* b) {
    return most_held_bytes(*a) > most_held_bytes(*b);
  });
  const HeapImageTitles titles = summary_titles(images);
  std::string out;
  // A build compiles hundreds of files: a page for each compiler would bury the few
  // processes that held the most.
  const size_t listed = std::min(processes, sampled.size());
  for (size_t i = 0; i < listed; ++i) {
    const analyze::HeapImageSummary& summary = *sampled[i];
    if (!summary.end) {
      // It sampled (its profiler connects on the first sample), then ended before a
      // snapshot: an exec or a signal within the first interval.
      out += titles(summary.image) + ": " + rate_text(summary.image.rate_bytes) +
             ", ended before its first snapshot (an exec or a signal)\n\n";
      continue;
    }
    out += titles(summary.image) + ": " + rate_text(summary.image.rate_bytes) + ", " +
           count_of(summary.image.samples, "sample", "samples") + ", " +
           analyze::heap_image_ending_text(summary.image,
                                           coverage.state != analyze::HeapCoverageSummary::State::kUnfinished) +
           "\n";
    if (summary.image.samples_dropped > 0) {
      out += "  " + std::to_string(summary.image.samples_dropped) +
             " samples dropped: the profiler's tables were full; estimates are low\n";
    }
    const bool between = reached_between_snapshots(summary);
    if (between) {
      out += "  its heap reached about " + format_bytes(summary.high_water_bytes) +
             " between snapshots (the profiler's high-water estimate): more than any snapshot below holds\n";
    }
    if (summary.peak && summary.peak->in_use_bytes > summary.end->in_use_bytes) {
      const char* what = between ? "at its highest snapshot" : "at its peak";
      append_moment(out, what, *summary.peak, recording_start_ms, frames);
    }
    append_moment(out, "at its end", *summary.end, recording_start_ms, frames);
    out += "\n";
  }
  out += heap_more_images_text(sampled.size() - listed, "with samples, each with a heap of at most",
                               listed < sampled.size() ? most_held_bytes(*sampled[listed]) : 0, sampled.size());
  return out + unsampled_text(unsampled, titles) + heap_coverage_text(coverage);
}

std::string heap_json(const std::vector<analyze::HeapImageSummary>& images, int64_t recording_start_ms,
                      const StackFrames& frames, const analyze::HeapCoverageSummary& coverage) {
  nlohmann::json list = nlohmann::json::array();
  for (const analyze::HeapImageSummary& summary : images) {
    nlohmann::json image = {{"pid", summary.image.pid},
                            {"name", summary.process ? nlohmann::json(summary.process->name) : nlohmann::json()},
                            {"cmdline", summary.process ? nlohmann::json(summary.process->cmdline) : nlohmann::json()},
                            {"started_ms", summary.image.started_ms},
                            {"ended_ms", summary.image.ended_ms ? nlohmann::json(*summary.image.ended_ms) : nlohmann::json()},
                            {"end", summary.image.end ? nlohmann::json(*summary.image.end) : nlohmann::json()},
                            {"rate_bytes", summary.image.rate_bytes},
                            {"unwind", summary.image.unwind},
                            {"samples", summary.image.samples},
                            {"samples_dropped", summary.image.samples_dropped},
                            {"snapshots", summary.snapshots},
                            {"high_water_bytes", summary.high_water_bytes}};
    image["at_peak"] = summary.peak ? moment_json(*summary.peak, frames) : nlohmann::json();
    image["at_end"] = summary.end ? moment_json(*summary.end, frames) : nlohmann::json();
    list.push_back(std::move(image));
  }
  nlohmann::json out = {{"recording_start_ms", recording_start_ms}, {"images", list}};
  out["not_profiled"] = heap_coverage_json(coverage);
  return json_dump(out, 2) + "\n";
}

}  // namespace canopy::report
