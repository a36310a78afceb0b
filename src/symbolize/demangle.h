// Symbol names as people read them: C++'s `_ZN6canopy4stepEi` becomes `canopy::step(int)`,
// Rust's `_RNvCs1234_7mycrate3foo` and `_ZN7mycrate3foo17h0123456789abcdefE` both become
// `mycrate::foo`.
#pragma once

#include <string>

namespace canopy::symbolize {

// Rust's manglings (v0 `_R`, and the legacy one that borrows C++'s `_ZN` and ends in a
// hash) as rustc-demangle writes them, without the hash; the Itanium C++ ABI's demangling
// of any other `_Z` name; any other name (C, or a mangling we do not know) as it is.
std::string demangle_symbol(const char* name);

}  // namespace canopy::symbolize
