#include "symbolize/demangle.h"

#include <cxxabi.h>
// libiberty.h, which demangle.h includes, declares its own basename() unless told that
// the C library has one: C++'s <cstring> declares another.
#define HAVE_DECL_BASENAME 1
#include <libiberty/demangle.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace canopy::symbolize {
namespace {

using Demangled = std::unique_ptr<char, decltype(&std::free)>;

}  // namespace

std::string demangle_symbol(const char* name) {
  if (std::strncmp(name, "_R", 2) != 0 && std::strncmp(name, "_Z", 2) != 0) {
    return name;
  }
  // A legacy Rust name is also a valid C++ one (`rs::main::h45c0...`, with `$u7b$` for
  // `{`): libiberty tells it by its hash, and declines every name that is not Rust's.
  Demangled rust(rust_demangle(name, DMGL_PARAMS | DMGL_ANSI), &std::free);
  if (rust) {
    return rust.get();
  }
  if (name[1] != 'Z') {
    return name;
  }
  int status = 0;
  Demangled cxx(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  // A name that only looks mangled (a C function called _Zebra) stays as it is.
  return status == 0 && cxx ? std::string(cxx.get()) : std::string(name);
}

}  // namespace canopy::symbolize
