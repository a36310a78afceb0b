#include "cli/heap_leak_names.h"

#include <array>
#include <string_view>

#include "symbolize/heap_stack_names.h"

namespace canopy::cli {
namespace {

// Frames deep enough to pass the library's own (a container's allocate, inlined into
// its callers several times over).
constexpr size_t kFramesToSearch = 16;

bool allocates_for_everyone(std::string_view function) {
  constexpr std::array<std::string_view, 5> prefixes = {"std::", "__gnu_cxx::", "operator new", "__cxa_", "__libc_"};
  for (std::string_view prefix : prefixes) {
    if (function.starts_with(prefix)) {
      return true;
    }
  }
  return false;
}

}  // namespace

void name_heap_leaks(const store::HeapProfile& profile, std::vector<analyze::HeapLeak>& leaks) {
  if (leaks.empty()) {
    return;
  }
  symbolize::HeapStackNames names(profile);
  for (analyze::HeapLeak& leak : leaks) {
    std::vector<symbolize::NamedFrame> frames = names.frames(leak.stack_id, kFramesToSearch);
    const symbolize::NamedFrame* chosen = frames.empty() ? nullptr : &frames.front();
    for (const symbolize::NamedFrame& frame : frames) {
      if (!allocates_for_everyone(frame.function)) {
        chosen = &frame;
        break;
      }
    }
    if (chosen) {
      leak.where = chosen->function + (chosen->location.empty() ? "" : " (" + chosen->location + ")");
    }
  }
}

}  // namespace canopy::cli
