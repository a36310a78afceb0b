#include <cstdio>

#include "analyze/heap_summary.h"
#include "cli/commands.h"
#include "common/terminal_text.h"
#include "report/heap_format.h"
#include "store/reader.h"
#include "symbolize/heap_stack_names.h"

namespace canopy::cli {

int run_heap_command(const HeapOptions& options) {
  auto reader = store::Reader::open(options.path);
  if (!reader) {
    print_error(reader.error().message);
    return 1;
  }
  auto profile = reader->heap_profile();
  auto processes = reader->processes();
  if (!profile || !processes) {
    print_error(!profile ? profile.error().message : processes.error().message);
    return 1;
  }
  auto images = analyze::summarize_heap(*profile, *processes, options.top);
  if (options.pid != 0) {
    std::erase_if(images, [&](const analyze::HeapImageSummary& s) { return s.image.pid != options.pid; });
    if (images.empty() && !profile->images.empty()) {
      print_error("no heap profile of PID " + std::to_string(options.pid) + " in '" + options.path + "'");
      return 1;
    }
  }
  symbolize::HeapStackNames names(*profile);
  report::StackFrames frames = [&](int64_t stack_id) {
    std::vector<report::FrameText> texts;
    for (const symbolize::NamedFrame& frame : names.frames(stack_id, options.frames)) {
      texts.push_back({frame.function, frame.location, frame.inlined});
    }
    return texts;
  };
  int64_t start_ms = reader->meta().start_ms.value_or(0);
  std::string text = options.json ? report::heap_json(images, start_ms, frames) : report::heap_text(images, start_ms, frames);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace canopy::cli
