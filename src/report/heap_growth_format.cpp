#include "report/heap_growth_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_dump.h"
#include "common/text.h"

namespace canopy::report {
namespace {

nlohmann::json image_json(const store::HeapImageRow& image, const std::optional<store::ProcessRow>& process) {
  return {{"pid", image.pid},
          {"name", process ? nlohmann::json(process->name) : nlohmann::json()},
          {"started_ms", image.started_ms},
          {"rate_bytes", image.rate_bytes}};
}

// The images with nothing to list, in one line: "24 more process images `what`", or
// without "more" when none was listed.
template <typename Image>
HeapImageTitles titles_of(const std::vector<Image>& images) {
  HeapImageTitles titles;
  for (const Image& image : images) {
    titles.add(*image.image, image.process);
  }
  titles.tell_apart();
  return titles;
}

std::string images_without_text(size_t count, bool after_some, const std::string& what) {
  if (count == 0) {
    return "";
  }
  return count_of(static_cast<int64_t>(count), after_some ? "more process image" : "process image",
                  after_some ? "more process images" : "process images") +
         " " + what + " (--json lists every one)\n";
}

// The images with something to list (a stack in `top`), the largest `measure` first:
// in a build, the many short processes with nothing would bury them.
template <typename Image, typename Measure>
std::vector<const Image*> listed_largest_first(const std::vector<Image>& images, Measure measure) {
  std::vector<const Image*> listed;
  for (const Image& image : images) {
    if (!image.top.empty()) {
      listed.push_back(&image);
    }
  }
  std::stable_sort(listed.begin(), listed.end(),
                   [&](const Image* a, const Image* b) { return measure(*a) > measure(*b); });
  return listed;
}

}  // namespace

std::string heap_growth_text(const std::vector<analyze::HeapImageGrowth>& images, int64_t start_ms,
                             const StackFrames& frames, size_t processes) {
  if (images.empty()) {
    return "no process image had a heap snapshot in that span\n";
  }
  // The images where a stack grew, by what those stacks gained (the whole heap may have
  // shrunk meanwhile); those where none did are one line.
  auto gained = [](const analyze::HeapImageGrowth& image) {
    int64_t bytes = image.other_bytes;
    for (const analyze::HeapStackGrowth& stack : image.top) {
      bytes += stack.to_bytes - stack.from_bytes;
    }
    return bytes;
  };
  const std::vector<const analyze::HeapImageGrowth*> grown = listed_largest_first(images, gained);
  const HeapImageTitles titles = titles_of(images);
  std::string out;
  char line[256];
  const size_t listed = std::min(processes, grown.size());
  for (size_t i = 0; i < listed; ++i) {
    const analyze::HeapImageGrowth& image = *grown[i];
    out += titles(*image.image) + ": heap " + format_bytes(image.from_in_use_bytes) + " at " +
           heap_offset_text(image.from_ms, start_ms) + ", " + format_bytes(image.to_in_use_bytes) + " at " +
           heap_offset_text(image.to_ms, start_ms) + " (" +
           format_signed_bytes(image.to_in_use_bytes - image.from_in_use_bytes) + ")\n";
    for (const analyze::HeapStackGrowth& stack : image.top) {
      std::snprintf(line, sizeof line, "    %11s  %10s/s  to %s  ", format_signed_bytes(stack.to_bytes - stack.from_bytes).c_str(),
                    format_bytes(std::llround(stack.bytes_per_second)).c_str(), format_bytes(stack.to_bytes).c_str());
      out += line + heap_verdict_text(stack.verdict, start_ms) + "\n";
      out += heap_frames_text(stack.stack_id, frames);
    }
    out += heap_more_stacks_text(image.other_stacks, image.other_bytes, "more growth") + "\n";
  }
  out += heap_more_images_text(grown.size() - listed, "where a stack grew, each gaining at most",
                               listed < grown.size() ? gained(*grown[listed]) : 0, grown.size());
  return out + images_without_text(images.size() - grown.size(), !grown.empty(), "in that span where no stack grew");
}

std::string heap_growth_json(const std::vector<analyze::HeapImageGrowth>& images, int64_t start_ms,
                             const StackFrames& frames) {
  nlohmann::json list = nlohmann::json::array();
  for (const analyze::HeapImageGrowth& image : images) {
    nlohmann::json stacks = nlohmann::json::array();
    for (const analyze::HeapStackGrowth& stack : image.top) {
      stacks.push_back({{"stack_id", stack.stack_id},
                        {"from_bytes", stack.from_bytes},
                        {"to_bytes", stack.to_bytes},
                        {"growth_bytes", stack.to_bytes - stack.from_bytes},
                        {"bytes_per_second", stack.bytes_per_second},
                        {"verdict", heap_verdict_json(stack.verdict)},
                        {"frames", heap_frames_json(stack.stack_id, frames)}});
    }
    nlohmann::json entry = image_json(*image.image, image.process);
    entry["from_ms"] = image.from_ms;
    entry["to_ms"] = image.to_ms;
    entry["from_in_use_bytes"] = image.from_in_use_bytes;
    entry["to_in_use_bytes"] = image.to_in_use_bytes;
    entry["stacks"] = stacks;
    entry["other_stacks"] = image.other_stacks;
    entry["other_bytes"] = image.other_bytes;
    list.push_back(std::move(entry));
  }
  return json_dump(nlohmann::json({{"recording_start_ms", start_ms}, {"growth", list}}), 2) + "\n";
}

std::string heap_aged_text(const std::vector<analyze::HeapImageAged>& images, int64_t age_ms, int64_t start_ms,
                           const StackFrames& frames, size_t processes) {
  if (images.empty()) {
    return "no process image had a heap snapshot by then\n";
  }
  // The images that hold old memory, the most first; those that hold none are one line.
  const std::vector<const analyze::HeapImageAged*> holding =
      listed_largest_first(images, [](const analyze::HeapImageAged& image) { return image.older_bytes; });
  const HeapImageTitles titles = titles_of(images);
  std::string out;
  char line[256];
  const size_t listed = std::min(processes, holding.size());
  for (size_t i = 0; i < listed; ++i) {
    const analyze::HeapImageAged& image = *holding[i];
    out += titles(*image.image) + ": " + format_bytes(std::llround(image.older_bytes)) + " held at " +
           heap_offset_text(image.t_ms, start_ms) + " by allocations older than " + format_duration_ms(age_ms) + "\n";
    for (const analyze::HeapStackAged& stack : image.top) {
      std::snprintf(line, sizeof line, "    %10s  %9lld allocations  oldest from %s  ",
                    format_bytes(std::llround(stack.older.bytes)).c_str(), static_cast<long long>(std::llround(stack.older.count)),
                    heap_offset_text(stack.oldest_born_ms, start_ms).c_str());
      out += line + heap_verdict_text(stack.verdict, start_ms) + "\n";
      out += heap_frames_text(stack.stack_id, frames);
    }
    out += heap_more_stacks_text(image.other_stacks, std::llround(image.other_bytes), "more") + "\n";
  }
  out += heap_more_images_text(holding.size() - listed, "holding such memory, each at most",
                               listed < holding.size() ? std::llround(holding[listed]->older_bytes) : 0,
                               holding.size());
  return out + images_without_text(images.size() - holding.size(), !holding.empty(),
                                   "held no allocation older than " + format_duration_ms(age_ms));
}

std::string heap_aged_json(const std::vector<analyze::HeapImageAged>& images, int64_t age_ms, int64_t start_ms,
                           const StackFrames& frames) {
  nlohmann::json list = nlohmann::json::array();
  for (const analyze::HeapImageAged& image : images) {
    nlohmann::json stacks = nlohmann::json::array();
    for (const analyze::HeapStackAged& stack : image.top) {
      stacks.push_back({{"stack_id", stack.stack_id},
                        {"older_bytes", std::llround(stack.older.bytes)},
                        {"older_count", std::llround(stack.older.count)},
                        {"sampled", stack.older.sampled},
                        {"oldest_born_ms", stack.oldest_born_ms},
                        {"verdict", heap_verdict_json(stack.verdict)},
                        {"frames", heap_frames_json(stack.stack_id, frames)}});
    }
    nlohmann::json entry = image_json(*image.image, image.process);
    entry["t_ms"] = image.t_ms;
    entry["older_bytes"] = std::llround(image.older_bytes);
    entry["stacks"] = stacks;
    entry["other_stacks"] = image.other_stacks;
    entry["other_bytes"] = std::llround(image.other_bytes);
    list.push_back(std::move(entry));
  }
  return json_dump(nlohmann::json({{"recording_start_ms", start_ms}, {"age_ms", age_ms}, {"older_than", list}}), 2) + "\n";
}

}  // namespace canopy::report
