// report/: the heap profile of a recording (record --heap) for people (terminal text)
// and scripts (JSON): per process image, its heap at its high-water mark and at its
// end beside its resident memory, and the stacks that held it, named, each with its
// verdict (leak, bounded or unclear).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analyze/heap_coverage.h"
#include "analyze/heap_summary.h"

namespace canopy::report {

struct FrameText {
  std::string function;
  std::string location;  // "file.cpp:42", or the object it is in
  bool inlined = false;
  std::string address = "";  // "0x4a1f3": where in its object a frame nothing names is
};
// The named frames of a stack, innermost first.
using StackFrames = std::function<std::vector<FrameText>(int64_t stack_id)>;

// The parts heap_format.cpp and heap_growth_format.cpp share.
// "cc1 f3.c (pid 10941)" for each image a text names: the name, and what tells the
// process from others of its name, those of one name that read alike told apart (each
// target of a unity build compiles a "Unity/unity_0_cxx.cxx"). The image rows and the
// processes given must outlive it: it keeps their addresses.
class HeapImageTitles {
 public:
  void add(const store::HeapImageRow& image, const std::optional<store::ProcessRow>& process);
  // After the last add.
  void tell_apart();
  std::string operator()(const store::HeapImageRow& image) const;

 private:
  std::map<const store::HeapImageRow*, size_t> by_image_ = {};  // the rows added, not copies
  std::vector<std::string> names_ = {};
  std::vector<std::string> words_ = {};
  std::vector<const std::vector<std::string>*> cmdlines_ = {};
  std::vector<int64_t> pids_ = {};
};

// "+1.2 s": a time of the recording from its start.
std::string heap_offset_text(int64_t t_ms, int64_t recording_start_ms);
// "    4.8 KiB more in 3 other stacks" (`what`: "more"), or nothing when none were left out.
std::string heap_more_stacks_text(int64_t stacks, int64_t bytes, const char* what);
// The images a text leaves out beyond --processes, in one line: "2 more process images
// `which` 25.0 MiB: --processes 4 lists every one, ...", or nothing when none were.
std::string heap_more_images_text(size_t more, const char* which, int64_t most_bytes, size_t all);
// The stack's frames, one per line under a stack's line; unnamed frames in a row in one
// object share a line ("?  cc1plus+0x4a1f3 +0x4a0c0  (2 frames)").
std::string heap_frames_text(int64_t stack_id, const StackFrames& frames);
nlohmann::json heap_frames_json(int64_t stack_id, const StackFrames& frames);
// "leak: grew at 4 snapshots, the last at +1.2 s; kept 412 of the 412 sampled
// allocations it had at +0.5 s"; times from the recording's start.
std::string heap_verdict_text(const analyze::HeapVerdict& verdict, int64_t recording_start_ms);
nlohmann::json heap_verdict_json(const analyze::HeapVerdict& verdict);

// The text lists `processes` of the images that sampled, the largest high-water mark
// first, and a line for the rest; then those that sampled nothing in one entry, by
// command. The JSON lists every image in the order `images` has. `coverage`: the
// processes not profiled, a section of its own after the images (heap_coverage_format.h).
std::string heap_text(const std::vector<analyze::HeapImageSummary>& images, int64_t recording_start_ms,
                      const StackFrames& frames, const analyze::HeapCoverageSummary& coverage,
                      size_t processes = SIZE_MAX);
std::string heap_json(const std::vector<analyze::HeapImageSummary>& images, int64_t recording_start_ms,
                      const StackFrames& frames, const analyze::HeapCoverageSummary& coverage);

}  // namespace canopy::report
