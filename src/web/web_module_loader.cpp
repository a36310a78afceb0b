#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "common/binary_directory.h"
#include "web/web_module.h"

namespace canopy::web {
namespace {

// Where the module is, in this order: the packager's override; beside the binary (the
// build tree, or a copy made with its module); the install layout, PREFIX/bin/canopy
// with PREFIX/lib/canopy/canopy-web.so.
Result<std::string> module_path() {
  if (const char* override_path = std::getenv(kWebModuleVariable); override_path && *override_path) {
    return std::string(override_path);
  }
  ASSIGN_OR_RETURN(auto directory, binary_directory());
  std::string beside = directory + kWebModuleFile;
  std::string installed = directory + "../lib/canopy/" + kWebModuleFile;
  for (const std::string& candidate : {beside, installed}) {
    if (::access(candidate.c_str(), F_OK) == 0) {
      return candidate;
    }
  }
  return Error{std::string("cannot find the viewer's module ") + kWebModuleFile + ": not at '" + beside +
               "' nor at '" + installed + "' (install canopy with its module, or set " + kWebModuleVariable +
               " to its path)"};
}

}  // namespace

Result<const WebModule*> load_web_module() {
  static const WebModule* loaded = nullptr;
  if (loaded) {
    return loaded;
  }
  ASSIGN_OR_RETURN(auto path, module_path());
  // Kept loaded for the life of the process: a server thread may still run its code.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    return Error{"cannot load the viewer's module '" + path + "': " + (why ? why : "unknown error")};
  }
  using Entry = const WebModule* (*)();
  auto entry = reinterpret_cast<Entry>(::dlsym(handle, kWebModuleEntry));
  if (!entry) {
    return Error{"'" + path + "' is not canopy's viewer module (no " + kWebModuleEntry + ")"};
  }
  loaded = entry();
  return loaded;
}

}  // namespace canopy::web
