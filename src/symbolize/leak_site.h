// The words that say where a stack's memory went, for one line of a summary: the
// innermost frame outside the allocator and the wrappers programs call it through (the
// C++ library's, GNU's x* functions, GLib's, CPython's), "function (file:line)". Where
// that frame is a runtime's own code beneath JIT code (Node's Buffer under JavaScript),
// the program's innermost JIT frame follows: "... from JS:*grow /app/x.js:2:19".
#pragma once

#include <string>
#include <vector>

#include "symbolize/heap_stack_names.h"

namespace canopy::symbolize {

// `frames` innermost first, as deep as is worth searching; "" when there are none.
std::string leak_site(const std::vector<NamedFrame>& frames);

}  // namespace canopy::symbolize
