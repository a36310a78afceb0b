#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <string>

#include "web/web_module.h"

namespace canopy::web {
namespace {

// The module sits beside the binary, wherever the binary was copied or built.
Result<std::string> module_path() {
  char exe[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    return Error{"cannot find the canopy binary's directory (/proc/self/exe)"};
  }
  std::string path(exe, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/') + 1) + kWebModuleFile;
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
