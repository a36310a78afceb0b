#include <charconv>
#include <cstdio>

#include "analyze/heap_summary.h"
#include "cli/commands.h"
#include "cli/flag_values.h"
#include "common/terminal_text.h"
#include "record/heap_control.h"
#include "report/heap_format.h"
#include "store/reader.h"
#include "symbolize/heap_stack_names.h"

namespace canopy::cli {

namespace {

// `canopy heap dump|on|off PID`.
int run_heap_control(const std::string& verb, const std::string& pid_text) {
  record::HeapCommand command = verb == "dump" ? record::HeapCommand::kDump
                                : verb == "on"   ? record::HeapCommand::kSamplingOn
                                                 : record::HeapCommand::kSamplingOff;
  int64_t pid = 0;
  auto [end, error] = std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), pid);
  if (error != std::errc() || end != pid_text.data() + pid_text.size() || pid < 1 || pid > kPidMaxLimit) {
    print_error("heap " + verb + " '" + pid_text + "': not a PID (a whole number from 1 to " +
                std::to_string(kPidMaxLimit) + ")");
    return 1;
  }
  if (auto sent = record::send_heap_command(static_cast<pid_t>(pid), command); !sent) {
    print_error(sent.error().message);
    return 1;
  }
  return 0;
}

int run_heap_report(const HeapOptions& options) {
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

}  // namespace

int run_heap_command(const HeapOptions& options) {
  const std::vector<std::string>& words = options.words;
  bool control = words.size() == 2 && (words[0] == "dump" || words[0] == "on" || words[0] == "off");
  if (words.size() == 2 && !control) {
    print_error("heap takes a recording, or dump, on or off and a PID: not '" + words[0] + " " + words[1] + "'");
    return 1;
  }
  if (control) {
    return run_heap_control(words[0], words[1]);
  }
  HeapOptions report = options;
  report.path = words[0];
  return run_heap_report(report);
}

}  // namespace canopy::cli
