#include "symbolize/leak_site.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace canopy::symbolize {
namespace {

// The allocator's own entry points and the wrappers programs call it through: the C++
// library's, GNU's x* functions (libiberty, gnulib: gcc's cc1 allocates through xcalloc),
// GLib's, CPython's, Rust's (its alloc crate, its impls for other types, the hashbrown
// tables behind its HashMap), and the JVM's (HotSpot's os::malloc, AllocateHeap, its
// C-heap objects' operator new, and its arenas and their chunks). The frame that called
// them says which data grew.
bool allocates_for_everyone(std::string_view function) {
  constexpr std::array<std::string_view, 28> prefixes = {
      "std::",           "__gnu_cxx::",      "operator new",       "__cxa_",          "__libc_",
      "g_malloc",        "g_realloc",        "g_slice_",           "PyMem_",          "_PyMem_",
      "PyObject_Malloc", "_PyObject_Malloc", "PyObject_Realloc",   "alloc::",         "<alloc::",
      "__rust_",         "__rdl_",           "hashbrown::",        "<hashbrown::",    "os::malloc(",
      "os::realloc(",    "os::strdup",       "AllocateHeap(",      "ReallocateHeap(", "CHeapObj<",
      "Arena::",         "ChunkPool::",      "Chunk::operator new"};
  constexpr std::array<std::string_view, 8> wrappers = {"xmalloc", "xcalloc", "xrealloc", "xzalloc",
                                                        "xstrdup", "xmemdup", "_PyObject_Calloc", "_PyObject_Realloc"};
  for (std::string_view prefix : prefixes) {
    if (function.starts_with(prefix)) {
      return true;
    }
  }
  // A Rust impl of the alloc crate's traits for another type: `<u8 as alloc::vec::...>`.
  if (function.starts_with("<") && function.find(" as alloc::") != std::string_view::npos) {
    return true;
  }
  return std::find(wrappers.begin(), wrappers.end(), function) != wrappers.end();
}

// JIT code of the program's own: named, and not the runtime's (V8's builtins and stubs,
// Node's own JavaScript, whose scripts are "node:buffer" and the like).
bool programs_jit_code(const NamedFrame& frame) {
  std::string_view name = frame.function;
  return frame.jit && name != "?" && !name.starts_with("Builtin:") && !name.starts_with("Stub:") &&
         !name.starts_with("BytecodeHandler:") && name.find(" node:") == std::string_view::npos;
}

// A named JIT frame's name says where it is (V8's holds the script and line); its
// location would only name the perf map.
std::string site_text(const NamedFrame& frame) {
  bool said = frame.location.empty() || (frame.jit && frame.function != "?");
  return frame.function + (said ? "" : " (" + frame.location + ")");
}

}  // namespace

std::string leak_site(const std::vector<NamedFrame>& frames) {
  auto chosen = std::find_if(frames.begin(), frames.end(),
                             [](const NamedFrame& frame) { return !allocates_for_everyone(frame.function); });
  if (chosen == frames.end()) {
    chosen = frames.begin();
  }
  if (chosen == frames.end()) {
    return "";
  }
  std::string site = site_text(*chosen);
  if (!chosen->jit) {
    auto caller = std::find_if(chosen, frames.end(), programs_jit_code);
    if (caller != frames.end()) {
      site += " from " + site_text(*caller);
    }
  }
  return site;
}

}  // namespace canopy::symbolize
