#include "export/heap_collapsed.h"

#include <limits>
#include <map>

#include "common/utf8.h"
#include "symbolize/heap_stack_names.h"

namespace canopy::exporters {
namespace {

int64_t figure(const HeapSample& sample, std::string_view metric) {
  if (metric == "inuse_objects") {
    return sample.inuse_objects;
  }
  if (metric == "alloc_space") {
    return sample.alloc_space;
  }
  if (metric == "alloc_objects") {
    return sample.alloc_objects;
  }
  return sample.inuse_space;
}

// A stack of no frames: the profiler could not unwind it.
constexpr std::string_view kNoStack = "[no stack]";

}  // namespace

bool is_heap_collapsed_metric(std::string_view metric) {
  return metric == "inuse_space" || metric == "inuse_objects" || metric == "alloc_space" ||
         metric == "alloc_objects";
}

std::string folded_frame(std::string_view name) {
  std::string scratch;
  std::string text(sanitized_utf8(name, scratch));
  for (char& c : text) {
    if (c == ';') {
      c = ',';
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      c = ' ';
    }
  }
  return text;
}

void write_folded_lines(const std::map<std::string, int64_t>& lines, const std::function<void(std::string_view)>& out) {
  std::string text;
  for (const auto& [line, value] : lines) {
    text += line + " " + std::to_string(value) + "\n";
    if (text.size() >= 1 << 16) {
      out(text);
      text.clear();
    }
  }
  out(text);
}

Status write_heap_collapsed(const store::Reader& reader, const HeapExportOptions& options, std::string_view metric,
                            const std::function<void(std::string_view)>& out) {
  ASSIGN_OR_RETURN(HeapSelection selection, select_heap(reader, options));
  symbolize::HeapStackNames names(selection.profile);
  // By line: stacks that differ only in addresses within the same functions (or in
  // process) fold into one line, as a flame graph would draw them.
  std::map<int64_t, int64_t> by_stack;
  for (const HeapSample& sample : selection.samples) {
    by_stack[sample.stack_id] += figure(sample, metric);
  }
  std::map<std::string, int64_t> lines;
  for (const auto& [stack_id, value] : by_stack) {
    if (value == 0) {
      continue;
    }
    std::vector<symbolize::NamedFrame> frames = names.frames(stack_id, std::numeric_limits<size_t>::max());
    std::string line;
    for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame) {
      bool unnamed = frame->function == "?" && !frame->location.empty();
      std::string object_and_address =
          frame->address_in_object.empty() ? frame->location : frame->location + "+" + frame->address_in_object;
      line += (line.empty() ? "" : ";") + folded_frame(unnamed ? object_and_address : frame->function);
    }
    lines[line.empty() ? std::string(kNoStack) : line] += value;
  }
  write_folded_lines(lines, out);
  return Ok{};
}

}  // namespace canopy::exporters
