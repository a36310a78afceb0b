#include "symbolize/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace canopy::symbolize {

std::string demangle_symbol(const char* name) {
  if (std::strncmp(name, "_Z", 2) != 0) {
    return name;
  }
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                                        &std::free);
  // A name that only looks mangled (a C function called _Zoom) stays as it is.
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(name);
}

}  // namespace canopy::symbolize
