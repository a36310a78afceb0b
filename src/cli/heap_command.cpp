#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>

#include "analyze/heap_coverage.h"
#include "analyze/heap_growth.h"
#include "analyze/heap_history.h"
#include "analyze/heap_rss.h"
#include "analyze/heap_summary.h"
#include "cli/commands.h"
#include "cli/flag_values.h"
#include "cli/time_range.h"
#include "common/terminal_text.h"
#include "common/text.h"
#include "record/heap_control.h"
#include "report/heap_format.h"
#include "report/heap_growth_format.h"
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
    return 2;
  }
  if (auto sent = record::send_heap_command(static_cast<pid_t>(pid), command); !sent) {
    print_error(sent.error().message);
    return 1;
  }
  return 0;
}

// The first flag given that only a recording's report takes, or null.
const char* report_flag_given(const HeapOptions& options) {
  for (auto [given, flag] : {std::pair{options.pid != 0, "--pid"}, std::pair{!options.command.empty(), "--command"},
                             std::pair{options.from_ms >= 0, "--from"}, std::pair{options.to_ms >= 0, "--to"},
                             std::pair{options.older_than_ms >= 0, "--older-than"},
                             std::pair{options.top.has_value(), "--top"},
                             std::pair{options.frames.has_value(), "--frames"},
                             std::pair{options.processes.has_value(), "--processes"},
                             std::pair{options.json, "--json"}}) {
    if (given) {
      return flag;
    }
  }
  return nullptr;
}

// The flags that pick what to list: --older-than and --from do not mix.
Status check_heap_view(const HeapOptions& options) {
  if (options.older_than_ms >= 0 && options.from_ms >= 0) {
    return Error{"--older-than looks at one moment (--to, else each process's end); --from is for growth"};
  }
  return Ok{};
}

int run_heap_report(const HeapOptions& options) {
  if (Status view = check_heap_view(options); !view) {
    print_error(view.error().message);
    return 2;
  }
  int exit_status = 0;
  auto reader = open_recording_in_range(options.path, options.from_ms, options.to_ms, exit_status);
  if (!reader) {
    return exit_status;
  }
  auto profile = reader->heap_profile();
  auto processes = reader->processes();
  if (!profile || !processes) {
    print_error(!profile ? profile.error().message : processes.error().message);
    return 1;
  }
  // Without an image, a heap recording still says why its processes went unprofiled.
  if (profile->images.empty() && profile->unprofiled.empty()) {
    print_error("'" + options.path + "' has no heap profile: record with --heap (canopy record --heap -- COMMAND)");
    return 1;
  }
  symbolize::HeapStackNames names(*profile);
  std::vector<analyze::HeapImageHistory> histories = analyze::heap_histories(*profile, names.stacks_that_read_alike());
  std::erase_if(histories, [&](const analyze::HeapImageHistory& history) {
    if (options.pid != 0 && history.image->pid != options.pid) {
      return true;
    }
    if (options.command.empty()) {
      return false;
    }
    auto process = analyze::heap_image_process(*history.image, *processes);
    return !process || process->name != options.command;
  });
  // The processes asked about, and why those of them that were not profiled were not.
  const bool filtered = options.pid != 0 || !options.command.empty();
  std::vector<store::ProcessRow> asked = *processes;
  std::erase_if(asked, [&](const store::ProcessRow& p) {
    return (options.pid != 0 && p.pid != options.pid) || (!options.command.empty() && p.name != options.command);
  });
  constexpr size_t kUnprofiledNamed = 3;  // per reason
  auto coverage =
      analyze::summarize_heap_coverage(*profile, asked, reader->meta().end_ms.has_value(), kUnprofiledNamed);
  const bool growth_view = options.from_ms >= 0 || (options.to_ms >= 0 && options.older_than_ms < 0);
  const bool aged_view = !growth_view && options.older_than_ms >= 0;
  const bool says_why = !growth_view && !aged_view && coverage.unprofiled > 0;
  if (histories.empty() && !says_why) {
    print_error(filtered ? "no heap profile of " +
                               (options.pid != 0 ? "PID " + std::to_string(options.pid)
                                                 : "command '" + options.command + "'") +
                               " in '" + options.path + "'"
                         : "'" + options.path + "' has no heap profile: no process of its tree was profiled " +
                               "(canopy heap without --from, --to or --older-than says why)");
    return 1;
  }
  report::StackFrames frames = [&](int64_t stack_id) {
    std::vector<report::FrameText> texts;
    for (const symbolize::NamedFrame& frame : names.frames(stack_id, options.frames.value_or(kHeapFramesDefault))) {
      texts.push_back({frame.function, frame.location, frame.inlined, frame.address_in_object});
    }
    return texts;
  };
  const int64_t start_ms = reader->meta().start_ms.value_or(0);
  const size_t top = options.top.value_or(kHeapTopDefault);
  const size_t processes_listed = options.processes.value_or(kHeapProcessesDefault);
  std::string text;
  if (growth_view) {
    int64_t from_ms = start_ms + std::max<int64_t>(options.from_ms, 0);
    int64_t to_ms = options.to_ms >= 0 ? start_ms + options.to_ms : std::numeric_limits<int64_t>::max();
    auto growth = analyze::heap_growth(histories, *processes, from_ms, to_ms, top);
    text = options.json ? report::heap_growth_json(growth, start_ms, frames)
                        : report::heap_growth_text(growth, start_ms, frames, processes_listed);
  } else if (aged_view) {
    std::optional<int64_t> at_ms;
    if (options.to_ms >= 0) {
      at_ms = start_ms + options.to_ms;
    }
    auto aged = analyze::heap_older_than(histories, *processes, options.older_than_ms, at_ms, top);
    text = options.json ? report::heap_aged_json(aged, options.older_than_ms, start_ms, frames)
                        : report::heap_aged_text(aged, options.older_than_ms, start_ms, frames, processes_listed);
  } else {
    std::set<int64_t> process_ids;
    for (const analyze::HeapImageHistory& history : histories) {
      if (auto process = analyze::heap_image_process(*history.image, *processes)) {
        process_ids.insert(process->id);
      }
    }
    auto rss = analyze::read_rss(*reader, process_ids);
    if (!rss) {
      print_error(rss.error().message);
      return 1;
    }
    auto images = analyze::summarize_heap(histories, *processes, *rss, top);
    text = options.json ? report::heap_json(images, start_ms, frames, coverage)
                        : report::heap_text(images, start_ms, frames, coverage, processes_listed);
  }
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace

int run_heap_command(const HeapOptions& options) {
  const std::vector<std::string>& words = options.words;
  const bool verb = !words.empty() && (words[0] == "dump" || words[0] == "on" || words[0] == "off");
  const bool control = words.size() == 2 && verb;
  if (words.size() == 2 && !control) {
    print_error("heap takes a recording, or dump, on or off and a PID: not '" + words[0] + " " + words[1] + "'");
    return 2;
  }
  if (control) {
    if (const char* flag = report_flag_given(options)) {
      print_error(std::string(flag) + " applies to canopy heap RECORDING, not to heap " + words[0]);
      return 2;
    }
    return run_heap_control(words[0], words[1]);
  }
  // A verb without its PID, unless a recording has that name.
  if (verb && words.size() == 1 && !std::filesystem::exists(words[0])) {
    print_error("heap " + words[0] + " needs the PID of a process of a tree being recorded with --heap (canopy heap " +
                words[0] + " PID)");
    return 2;
  }
  HeapOptions report = options;
  report.path = words[0];
  return run_heap_report(report);
}

}  // namespace canopy::cli
