#include "report/heap_coverage_format.h"

#include "common/terminal_text.h"
#include "common/text.h"

namespace canopy::report {
namespace {

// "pid 4242  make -C lib all", on one line, at most so long.
std::string unprofiled_process_text(const store::ProcessRow& process) {
  constexpr size_t kAtMost = 72;
  std::string command;
  for (const std::string& argument : process.cmdline) {
    command += (command.empty() ? "" : " ") + argument;
  }
  if (command.empty()) {
    command = process.name;
  }
  if (command.size() > kAtMost) {
    command = command.substr(0, kAtMost - 3) + "...";
  }
  return "pid " + std::to_string(process.pid) + "  " + terminal_safe(command);
}

std::string processes_text(int64_t count) { return count_of(count, "process", "processes"); }

}  // namespace

std::string heap_coverage_text(const analyze::HeapCoverageSummary& coverage) {
  using State = analyze::HeapCoverageSummary::State;
  switch (coverage.state) {
    case State::kNoHeap:
      return "";
    case State::kNotRecorded:
      return "not profiled: not recorded (a canopy from before it said which processes went unprofiled)\n";
    case State::kUnfinished:
      return "not profiled: unknown (the recording did not end, and canopy says which processes went unprofiled "
             "as it ends)\n";
    case State::kRecorded:
      break;
  }
  if (coverage.unprofiled == 0) {
    return "not profiled: none of " + processes_text(coverage.processes) + "\n";
  }
  std::string out = "not profiled: " + std::to_string(coverage.unprofiled) + " of " +
                    processes_text(coverage.processes) + "\n";
  for (const analyze::UnprofiledGroup& group : coverage.groups) {
    out += "  " + terminal_safe(group.reason) + " (" + std::to_string(group.processes) +
           "): " + analyze::unprofiled_meaning(group.reason, coverage.rate_bytes) + "\n";
    for (const store::ProcessRow& process : group.first) {
      out += "    " + unprofiled_process_text(process) + "\n";
    }
    if (group.processes > static_cast<int64_t>(group.first.size())) {
      out += "    and " + std::to_string(group.processes - static_cast<int64_t>(group.first.size())) + " more\n";
    }
  }
  return out;
}

std::string heap_coverage_line(const analyze::HeapCoverageSummary& coverage, int64_t imaged_processes) {
  using State = analyze::HeapCoverageSummary::State;
  const std::string imaged = "images from " + std::to_string(imaged_processes) + " of " +
                             processes_text(coverage.processes);
  switch (coverage.state) {
    case State::kNoHeap:
      return "";
    case State::kNotRecorded:
      return imaged + " (a canopy from before it said why the others sent none)";
    case State::kUnfinished:
      return imaged + " (the recording did not end: why the others sent none is unknown)";
    case State::kRecorded:
      break;
  }
  std::string line = std::to_string(coverage.processes - coverage.unprofiled) + " of " +
                     processes_text(coverage.processes);
  if (coverage.unprofiled == 0) {
    return line;
  }
  std::string reasons;
  for (const analyze::UnprofiledGroup& group : coverage.groups) {
    reasons += (reasons.empty() ? "" : ", ") + std::to_string(group.processes) + " " + terminal_safe(group.reason);
  }
  return line + " (not profiled: " + reasons + ")";
}

nlohmann::json heap_coverage_json(const analyze::HeapCoverageSummary& coverage) {
  using State = analyze::HeapCoverageSummary::State;
  if (coverage.state == State::kNoHeap) {
    return nullptr;
  }
  if (coverage.state != State::kRecorded) {
    return {{"recorded", false},
            {"why", coverage.state == State::kUnfinished ? "the recording did not end" : "an older canopy"}};
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const analyze::UnprofiledGroup& group : coverage.groups) {
    nlohmann::json first = nlohmann::json::array();
    for (const store::ProcessRow& process : group.first) {
      first.push_back({{"process_id", process.id},
                       {"pid", process.pid},
                       {"name", process.name},
                       {"cmdline", process.cmdline}});
    }
    groups.push_back({{"reason", group.reason}, {"processes", group.processes}, {"first", first}});
  }
  return {{"recorded", true},
          {"processes", coverage.processes},
          {"unprofiled", coverage.unprofiled},
          {"rate_bytes", coverage.rate_bytes},
          {"reasons", groups}};
}

}  // namespace canopy::report
