#include "cli/heap_leak_names.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "symbolize/heap_stack_names.h"

namespace canopy::cli {
namespace {

// Frames deep enough to pass the library's own (a container's allocate, inlined into
// its callers several times over).
constexpr size_t kFramesToSearch = 16;

// The allocator's own entry points and the wrappers programs call it through: the C++
// library's, GNU's x* functions (libiberty, gnulib: gcc's cc1 allocates through xcalloc),
// GLib's and CPython's. The frame that called them says which data grew.
bool allocates_for_everyone(std::string_view function) {
  constexpr std::array<std::string_view, 13> prefixes = {
      "std::",    "__gnu_cxx::", "operator new", "__cxa_",       "__libc_",       "g_malloc",     "g_realloc",
      "g_slice_", "PyMem_",      "_PyMem_",      "PyObject_Malloc", "_PyObject_Malloc", "PyObject_Realloc"};
  constexpr std::array<std::string_view, 8> wrappers = {"xmalloc", "xcalloc", "xrealloc", "xzalloc",
                                                        "xstrdup", "xmemdup", "_PyObject_Calloc", "_PyObject_Realloc"};
  for (std::string_view prefix : prefixes) {
    if (function.starts_with(prefix)) {
      return true;
    }
  }
  return std::find(wrappers.begin(), wrappers.end(), function) != wrappers.end();
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
