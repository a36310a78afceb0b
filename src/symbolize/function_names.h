// The name of the function a DWARF scope belongs to, as people read it and the same
// whether the function was inlined or not, so that a profile adds up its instances.
#pragma once

#include <elfutils/libdw.h>

#include <string>

namespace canopy::symbolize {

// A C++ linkage name demangled ("canopy::step(int)"). GCC gives static functions and
// those of anonymous namespaces none, and C functions have none: then DW_AT_name,
// qualified by the namespaces and classes it was declared in
// ("canopy::(anonymous namespace)::step", without the parameter types only a mangled
// name carries). Empty when the DIE has no name.
std::string scope_function_name(Dwarf_Die* die);

}  // namespace canopy::symbolize
