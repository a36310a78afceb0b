// C++ symbol names as people read them: `_ZN6canopy4stepEi` becomes `canopy::step(int)`.
#pragma once

#include <string>

namespace canopy::symbolize {

// The Itanium C++ ABI's demangling of a `_Z` name; any other name (C, or a mangling we do
// not know) as it is.
std::string demangle_symbol(const char* name);

}  // namespace canopy::symbolize
